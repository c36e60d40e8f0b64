package podrun

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// MachineDir makes dir on this machine, owned by root and closed to
// everyone else, as another program might have left it, unless it exists:
// a test of what a container must not see of the machine. What it made
// (dir and the parents it added) is removed when the test ends. Needs root.
func MachineDir(t testing.TB, dir string) {
	t.Helper()
	first := nearestExisting(filepath.Join(dir, "x"))
	if first == dir {
		return
	}
	require.NoError(t, os.MkdirAll(dir, 0o700))
	require.NoError(t, os.Chown(dir, 0, 0))
	made := dir
	for filepath.Dir(made) != first {
		made = filepath.Dir(made)
	}
	t.Cleanup(func() { _ = os.RemoveAll(made) })
}
