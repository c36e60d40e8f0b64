// Package testbin builds the glance-hooks command once per test process, the
// way the image builds it, for tests that run the real binary.
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// Package is the command's import path.
const Package = "github.com/c5c3/glance-hooks/cmd/glance-hooks"

// The version and commit the test binary is stamped with, so tests can see
// the stamping work end to end.
const (
	Version = "v0.0.0-test"
	Commit  = "0123456789abcdef0123456789abcdef01234567"
)

var (
	once sync.Once
	dir  string
	path string
	err  error
)

// Path builds the binary on first use with hack/build.sh, the script make
// build, the Dockerfile and make image run, and returns where it is.
func Path() (string, error) {
	once.Do(func() {
		var root string
		if root, err = ModuleRoot(); err != nil {
			return
		}
		if dir, err = os.MkdirTemp("", "glance-hooks-bin-"); err != nil {
			return
		}
		path = filepath.Join(dir, "glance-hooks")
		cmd := exec.Command("bash", filepath.Join(root, "hack", "build.sh"), path)
		// A release of its own version: what it renders (the registration
		// Jobs' image) does not change with the VERSION file.
		cmd.Env = append(os.Environ(), "VERSION="+Version, "RELEASE="+Version, "COMMIT="+Commit)
		if out, buildErr := cmd.CombinedOutput(); buildErr != nil {
			err = fmt.Errorf("hack/build.sh: %w\n%s", buildErr, out)
		}
	})
	return path, err
}

// ModuleRoot is the directory of the repository's go.mod, from whichever
// package directory a test runs in.
func ModuleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("not inside the glance-hooks module")
	}
	return filepath.Dir(mod), nil
}

// Cleanup removes the built binary; call it from TestMain after m.Run.
func Cleanup() {
	if dir != "" {
		_ = os.RemoveAll(dir)
	}
}
