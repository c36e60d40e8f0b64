package inivalue

import (
	"errors"
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// URLProblems says why v is not an http(s) URL the service can use, nothing
// when it is: it parses, is http or https with a host and a port of at most
// 65535, and carries no user:password@. A URL that does not parse is
// refused, never passed unchecked: `%zz` or a port like `39x0` would
// otherwise hide user info from the check. credentialsFrom ends the refusal
// of user info, saying where credentials belong instead. Each problem is a
// clause of its own, written after "<field>: "; the first three are the
// reference's words for its endpoint URLs. No message repeats the URL, nor
// any part of it: the parser's own error quotes what it could not read,
// which may be a piece of a password.
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
		return []string{"must be a valid URL: " + unquotedParseError(err)}
	}
	var out []string
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		out = append(out, "scheme must be http or https")
	case u.Hostname() == "" || u.Opaque != "":
		out = append(out, "URL must include a host")
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

// quoted is a Go-quoted string in an error message.
var quoted = regexp.MustCompile(` ?"(?:[^"\\]|\\.)*"`)

// unquotedParseError is why url.Parse refused a URL, without the URL and
// without the piece of it the reason quotes ("invalid URL escape" for
// `invalid URL escape "%zz"`).
func unquotedParseError(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return strings.TrimSpace(quoted.ReplaceAllString(err.Error(), ""))
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
