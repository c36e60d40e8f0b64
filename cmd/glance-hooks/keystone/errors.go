package keystone

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/c5c3/glance-hooks/hooks/contract/excerpt"
)

// Refused is a failure that running again cannot fix: Keystone refused the
// admin credentials, the admin may not do what registration needs, or the
// catalog holds something this run will not overwrite. A Job fails at once
// on it instead of retrying (the command exits 3).
type Refused struct{ Msg string }

func (e *Refused) Error() string { return e.Msg }

// IsRefused reports whether err is (or wraps) a Refused.
func IsRefused(err error) bool {
	var r *Refused
	return errors.As(err, &r)
}

func refused(format string, args ...any) error { return &Refused{Msg: fmt.Sprintf(format, args...)} }

// maxKeystoneMessage bounds how much of Keystone's own error message is
// repeated: enough for "Could not find project: service", not a page.
const maxKeystoneMessage = 200

// masker replaces the secrets a run knows wherever they might be echoed.
type masker []string

func (m masker) mask(s string) string {
	for _, secret := range m {
		if secret != "" {
			s = strings.ReplaceAll(s, secret, "<redacted>")
		}
	}
	return s
}

// describe says what went wrong in one call: the HTTP status and Keystone's
// message for an answer, the transport error for no answer. Secrets are
// masked and Keystone's message is cut, so the result can go to a log line
// and a termination message.
func (m masker) describe(what string, err error) error {
	var code gophercloud.ErrUnexpectedResponseCode
	if errors.As(err, &code) {
		msg := fmt.Sprintf("%s: Keystone answered HTTP %d on %s %s%s", what, code.Actual, code.Method, pathOf(code.URL), m.keystoneMessage(code.Body))
		if code.Actual == 401 || code.Actual == 403 {
			return &Refused{Msg: msg}
		}
		return errors.New(msg)
	}
	return fmt.Errorf("%s: %s", what, m.mask(err.Error()))
}

// keystoneMessage is Keystone's {"error": {"message": ...}}, masked and cut.
func (m masker) keystoneMessage(body []byte) string {
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &e) != nil || e.Error.Message == "" {
		return ""
	}
	return ": " + excerpt.Quote(m.mask(e.Error.Message), maxKeystoneMessage)
}

// pathOf keeps the path of a URL: the host is the operator's auth URL,
// already named where it matters, and a query may name users.
func pathOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Path
}
