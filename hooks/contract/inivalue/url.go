package inivalue

import (
	"net/url"
	"strconv"
)

// URLProblems says why v is not an http(s) URL the service can use, nothing
// when it is: it parses, is http or https with a host and a port of at most
// 65535, and carries no user:password@. A URL that does not parse is
// refused, never passed unchecked: `%zz` or a port like `39x0` would
// otherwise hide user info from the check. credentialsFrom ends the refusal
// of user info, saying where credentials belong instead. No message repeats
// the URL.
func URLProblems(v, credentialsFrom string) []string {
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
