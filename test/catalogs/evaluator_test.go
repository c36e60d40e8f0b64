package catalogs

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/c5c3/glance-hooks/test/proc"
)

// TestEvaluator runs the generators' own tests (hack/optioncatalog,
// test_pystatic.py: the static evaluator on small made-up modules;
// test_paste_factories.py: the reading of a paste file's factories). They need only
// Python 3, no OpenStack package.
func TestEvaluator(t *testing.T) {
	python := "/usr/bin/python3"
	if _, err := os.Stat(python); err != nil {
		proc.Missing(t, "python3 (Debian package python3)", "apt-get install python3")
	}
	cmd := exec.Command(python, "-B", "-m", "unittest", "-v", "test_pystatic", "test_paste_factories")
	cmd.Dir = filepath.Join("..", "..", "hack", "optioncatalog")
	cmd.Env = proc.CleanEnv(t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("python3 -m unittest test_pystatic test_paste_factories: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}
