package services

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/c5c3/glance-hooks/test/proc"
)

// Python is the system interpreter the Debian packages are installed for;
// a python3 earlier on PATH (pyenv, a virtualenv) does not see them.
const Python = "/usr/bin/python3"

// need returns the path of a program of the Debian packages, or skips (fails
// under REQUIRE_SERVICES) naming the package and how to install it.
func need(t testing.TB, program, pkg string) string {
	t.Helper()
	if p, err := lookSystem(program); err == nil {
		return p
	}
	proc.Missing(t, fmt.Sprintf("%s (Debian package %s)", program, pkg), "hack/install-services.sh installs it")
	return ""
}

// lookSystem finds a program in the system directories, never in the
// caller's PATH.
func lookSystem(program string) (string, error) {
	for _, dir := range filepath.SplitList(proc.SystemPath) {
		p := filepath.Join(dir, program)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}

// shortTempDir is a directory with a short path, for UNIX sockets (their
// path is limited to about 107 bytes, and t.TempDir's carry the test name).
func shortTempDir(t testing.TB, prefix string) string {
	t.Helper()
	d, err := os.MkdirTemp("", prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(d) })
	return d
}

func mkdirs(t testing.TB, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
}
