package test

import (
	"go/build"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/c5c3/glance-hooks"

// TestHookPackagesStayPure keeps the README's promise about the layers:
// the packages under hooks/ (pure hooks and their shared contract) touch no
// transport, no API client, and nothing of internal/ or cmd/.
func TestHookPackagesStayPure(t *testing.T) {
	forbidden := []string{"net/http", "github.com/labstack/echo", "k8s.io/client-go", module + "/internal/", module + "/cmd/"}
	found := 0
	err := filepath.WalkDir(filepath.Join("..", "hooks"), func(dir string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		pkg, err := build.ImportDir(dir, 0)
		if _, none := err.(*build.NoGoError); none {
			return nil
		}
		if err != nil {
			return err
		}
		found++
		for _, imp := range pkg.Imports {
			for _, f := range forbidden {
				if imp == strings.TrimSuffix(f, "/") || strings.HasPrefix(imp, f) {
					t.Errorf("%s imports %s: hook packages are pure (docs/hooks.md, Where things live)", dir, imp)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found < 10 {
		t.Fatalf("found %d packages under hooks/, expected the hooks and their contract", found)
	}
}
