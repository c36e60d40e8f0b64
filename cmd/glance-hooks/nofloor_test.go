package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The floor the measurements compare the hooks with (handlers with no hook
// logic) must never be served by a production binary: the binary depends on
// no package under test/, so no flag or route can reach it.
func TestFloorIsNotInTheBinary(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	deps := strings.Fields(string(out))
	require.Contains(t, deps, "github.com/c5c3/glance-hooks/transport/server", "go list -deps lists the binary's packages")
	for _, d := range deps {
		assert.False(t, strings.HasPrefix(d, "github.com/c5c3/glance-hooks/test/"), "the binary depends on %s", d)
	}
	code, _, stderr := runCLI(t, "serve", "--floor", "--insecure-plain-http")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "unknown flag: --floor")
}
