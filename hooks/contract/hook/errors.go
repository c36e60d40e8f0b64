// Package hook holds what every hook shares: input errors the transport maps
// to 4xx answers, decoding and checking of the parent, and conditions that
// keep their lastTransitionTime.
package hook

import (
	"errors"
	"fmt"
)

// InputError is a request the hook cannot act on: malformed, the wrong kind,
// a missing field. The transport answers it with a 4xx and the message; the
// message never carries a value from the request body that could be secret.
type InputError struct {
	Msg string
}

func (e *InputError) Error() string { return e.Msg }

// Invalid builds an InputError.
func Invalid(format string, args ...any) error {
	return &InputError{Msg: fmt.Sprintf(format, args...)}
}

// IsInputError reports whether err is (or wraps) an InputError.
func IsInputError(err error) bool {
	var ie *InputError
	return errors.As(err, &ie)
}
