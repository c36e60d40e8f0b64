package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The floor the measurements compare the hooks with (handlers with no hook
// logic) must never be served by a production binary: the binary depends on
// no package under test/, so no flag or route can reach it.
func TestFloorIsNotInTheBinary(t *testing.T) {
	deps := binaryDeps(t)
	require.Contains(t, deps, "github.com/c5c3/glance-hooks/transport/server", "go list -deps lists the binary's packages")
	assertNotLinked(t, deps, "github.com/c5c3/glance-hooks/test/", "the floor and the test helpers stay out of the binary")
	code, _, stderr := runCLI(t, "serve", "--floor", "--insecure-plain-http")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "unknown flag: --floor")
}
