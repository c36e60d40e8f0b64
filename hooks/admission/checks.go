package admission

import (
	"fmt"
	"net/url"

	"github.com/c5c3/glance-hooks/hooks/contract/storeconf"
)

// Messages here name fields and say what is wrong; they never repeat a value
// that could be a credential (URLs, option values).

// checkURL says what is wrong with an http(s) URL field, or "" when it is fine.
// A URL carrying user:password@ is refused: credentials live in Secrets.
func checkURL(field, v string) string {
	if p := storeconf.ValueProblem(v); p != "" {
		return fmt.Sprintf("%s %s", field, p)
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Sprintf("%s must be an http:// or https:// URL with a host", field)
	}
	if u.User != nil {
		return fmt.Sprintf("%s must not carry credentials (user:password@); they belong in a Secret", field)
	}
	return ""
}

// checkValue says what is wrong with a value that is rendered into the config.
func checkValue(field, v string) string {
	if p := storeconf.ValueProblem(v); p != "" {
		return fmt.Sprintf("%s %s", field, p)
	}
	return ""
}
