package podrun

import "strings"

// The kubelet's bounds on a termination message taken from the log.
const (
	terminationLogLines = 80
	terminationLogBytes = 2048
)

// FallbackMessage is the termination message the kubelet records for a
// container with terminationMessagePolicy FallbackToLogsOnError that wrote
// no termination message file (the harness mounts none): when it failed,
// the tail of its log, at most 80 lines and 2048 bytes; nothing when it
// exited 0. Secrets in the log are masked, as in Log.
func (r Result) FallbackMessage() string {
	if r.ExitCode == 0 && !r.TimedOut {
		return ""
	}
	lines := strings.SplitAfter(r.Log, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) > terminationLogLines {
		lines = lines[len(lines)-terminationLogLines:]
	}
	msg := strings.Join(lines, "")
	if len(msg) > terminationLogBytes {
		msg = msg[len(msg)-terminationLogBytes:]
	}
	return msg
}
