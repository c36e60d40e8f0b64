package storeconf

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestEnvValueProblem(t *testing.T) {
	for _, ok := range []string{"pass", "pa$$word", "p@ss:w/rd%", "ünïcode", "tab\tand\nnewline"} {
		assert.Empty(t, EnvValueProblem(ok), "%q reaches a process through its environment", ok)
	}
	for _, bad := range []string{"\x00", "pass\x00word", "trailing\x00"} {
		assert.Equal(t, "contains a NUL byte, which no environment variable can carry", EnvValueProblem(bad), "%q", bad)
	}
}
