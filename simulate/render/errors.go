package render

import (
	"errors"
	"fmt"
	"strings"

	"github.com/c5c3/glance-hooks/hooks/contract/hook"
)

// Exit codes of `glance-hooks render`. They are part of the command's
// contract (the README lists them).
const (
	// ExitOK: rendered and converged; with --diff, the inputs render the same.
	ExitOK = 0
	// ExitDifferent: --diff only, the two inputs render differently (as
	// `diff` and `kubectl diff` do).
	ExitDifferent = 1
	// ExitUsage: bad flags or arguments.
	ExitUsage = 2
	// ExitInput: an input could not be read or is not an object render
	// accepts (malformed YAML/JSON, unknown kind, missing name, duplicate).
	ExitInput = 3
	// ExitRefused: an object was refused by the validate hook's rules.
	ExitRefused = 4
	// ExitNotConverged: the hooks still changed something after the round
	// limit; the state reached is written anyway.
	ExitNotConverged = 5
	// ExitHookFailed: a hook answered an error (a failed sync in a cluster),
	// or the output could not be written.
	ExitHookFailed = 6
	// ExitNotReady: --check only, a parent's Ready condition is not True.
	ExitNotReady = 7
)

// UsageError is a command that cannot run as asked: flags that do not go
// together, no input.
type UsageError struct {
	Msg string
}

func (e *UsageError) Error() string { return e.Msg }

func usageErr(format string, args ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, args...)}
}

// ErrDifferent is a --diff whose inputs render differently. It is the
// answer asked for rather than a failure, so it is not printed.
var ErrDifferent = errors.New("the inputs render differently")

// InputError is an input render cannot take. Source says where it is
// ("file.yaml:12"), Msg what is wrong.
type InputError struct {
	Source string
	Msg    string
}

func (e *InputError) Error() string {
	if e.Source == "" {
		return e.Msg
	}
	return e.Source + ": " + e.Msg
}

func inputErr(source, format string, args ...any) error {
	return &InputError{Source: source, Msg: fmt.Sprintf(format, args...)}
}

// RefusedError is an object the validate hook would refuse. Message is the
// admission message, exactly as the webhook returns it.
type RefusedError struct {
	Source  string
	Object  string // "GlanceBackend openstack/secondary"
	Message string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("%s: %s refused by admission: %s", e.Source, e.Object, e.Message)
}

// NotConvergedError is a run that hit the round limit.
type NotConvergedError struct {
	Rounds int
}

func (e *NotConvergedError) Error() string {
	return fmt.Sprintf("the hooks did not converge: objects still changed after %s (raise --max-rounds, or look for two hooks undoing each other)", hook.Plural(e.Rounds, "round", "rounds"))
}

// HookError is a hook that answered an error.
type HookError struct {
	Err error
}

func (e *HookError) Error() string { return "a hook failed: " + e.Err.Error() }

func (e *HookError) Unwrap() error { return e.Err }

// NotReadyError ends a --check with parents that are not Ready.
type NotReadyError struct {
	// Parents are "Kind namespace/name", in output order.
	Parents []string
}

func (e *NotReadyError) Error() string {
	return fmt.Sprintf("--check: %s not Ready: %s", hook.Plural(len(e.Parents), "parent", "parents"), strings.Join(e.Parents, ", "))
}

// ExitCode maps an error from this package to the command's exit code.
func ExitCode(err error) int {
	var (
		use *UsageError
		in  *InputError
		ref *RefusedError
		nc  *NotConvergedError
		he  *HookError
		nr  *NotReadyError
	)
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, ErrDifferent):
		return ExitDifferent
	case errors.As(err, &use):
		return ExitUsage
	case errors.As(err, &nr):
		return ExitNotReady
	case errors.As(err, &in):
		return ExitInput
	case errors.As(err, &ref):
		return ExitRefused
	case errors.As(err, &nc):
		return ExitNotConverged
	case errors.As(err, &he):
		return ExitHookFailed
	}
	return ExitHookFailed
}
