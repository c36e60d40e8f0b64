package storeconf

import "strings"

// EnvValueProblem says why a value cannot reach a process through an
// environment variable, or "". The kernel passes the environment as
// NUL-terminated strings, so a NUL would cut the value short where the
// pod starts, far from the Secret that holds it; nothing else is out of
// reach of an environment variable.
func EnvValueProblem(v string) string {
	if strings.IndexByte(v, 0) >= 0 {
		return "contains a NUL byte, which no environment variable can carry"
	}
	return ""
}
