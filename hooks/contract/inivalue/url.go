package inivalue

import (
	"net/url"
	"strconv"
	"strings"
)

// URLProblems says why v is not an http(s) URL the service can use, nothing
// when it is: it parses, is http or https with a host and a port of at most
// 65535, and carries no user:password@. A URL that does not parse is
// refused, never passed unchecked: `%zz` or a port like `39x0` would
// otherwise hide user info from the check. credentialsFrom ends the refusal
// of user info, saying where credentials belong instead. No message repeats
// the URL.
func URLProblems(v, credentialsFrom string) []string {
	if plainURL(v) {
		return nil
	}
	return parsedURLProblems(v, credentialsFrom)
}

// parsedURLProblems is URLProblems by parsing v.
func parsedURLProblems(v, credentialsFrom string) []string {
	u, err := url.Parse(v)
	if err != nil {
		return []string{"is not a valid URL"}
	}
	var out []string
	if u.Scheme != "http" && u.Scheme != "https" || u.Hostname() == "" || u.Opaque != "" {
		out = append(out, "must be an http:// or https:// URL")
	}
	if u.User != nil {
		out = append(out, "must not carry credentials (user:password@); "+credentialsFrom)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			out = append(out, "must have a port from 1 to 65535")
		}
	}
	return out
}

// plainURL reports whether v is of the plain form nearly every store's
// URL takes, "http://" or "https://", a host of lowercase letters, digits,
// '.' and '-', and a port from 1 to 65535 or none, nothing else: such a URL
// has no problem, and it is known without parsing it (every attached
// store's URL is checked each sync, a parse and an allocation each).
// Anything else is parsed; FuzzPlainURL holds that plainURL accepts no URL
// URLProblems would refuse.
func plainURL(v string) bool {
	rest, ok := strings.CutPrefix(v, "https://")
	if !ok {
		if rest, ok = strings.CutPrefix(v, "http://"); !ok {
			return false
		}
	}
	host, port, hasPort := strings.Cut(rest, ":")
	if host == "" || strings.IndexFunc(host, func(c rune) bool {
		return (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '.' && c != '-'
	}) >= 0 {
		return false
	}
	if !hasPort {
		return true
	}
	n, err := strconv.Atoi(port)
	return err == nil && port[0] != '+' && port[0] != '-' && n >= 1 && n <= 65535
}
