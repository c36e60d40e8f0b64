package model

import (
	"errors"
	"fmt"
)

// specError is a value of the Glance spec that cannot be rendered safely.
// The sync keeps the last-good config and reports it as InvalidSpec; any
// other error is the request's (an input error) and fails the call.
type specError struct{ err error }

func (e specError) Error() string { return e.err.Error() }
func (e specError) Unwrap() error { return e.err }

// InvalidSpec makes a specError; %w keeps the cause reachable.
func InvalidSpec(format string, args ...any) error {
	return specError{fmt.Errorf(format, args...)}
}

// IsSpecError reports whether err, or an error it wraps, is a specError.
func IsSpecError(err error) bool {
	var se specError
	return errors.As(err, &se)
}
