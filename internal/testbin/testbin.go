// Package testbin builds the glance-hooks command once per test process, the
// way the image builds it, for tests that run the real binary.
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
)

// Package is the command's import path; building by import path works from
// any directory of the module.
const Package = "github.com/c5c3/glance-hooks/cmd/glance-hooks"

var (
	once sync.Once
	dir  string
	path string
	err  error
)

// Path builds the binary on first use (static, -trimpath, no build id, as
// the Dockerfile does) and returns where it is.
func Path() (string, error) {
	once.Do(func() {
		if dir, err = os.MkdirTemp("", "glance-hooks-bin-"); err != nil {
			return
		}
		path = filepath.Join(dir, "glance-hooks")
		cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w -buildid=", "-o", path, Package)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=-buildvcs=false")
		if out, buildErr := cmd.CombinedOutput(); buildErr != nil {
			err = fmt.Errorf("go build %s: %w\n%s", Package, buildErr, out)
		}
	})
	return path, err
}

// Cleanup removes the built binary; call it from TestMain after m.Run.
func Cleanup() {
	if dir != "" {
		_ = os.RemoveAll(dir)
	}
}
