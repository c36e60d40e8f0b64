package test

import (
	"go/build"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/c5c3/glance-hooks"

// rawJSON is the fast JSON decoder: how a request's bytes become values,
// an implementation detail of the request contract, which is the one
// package under hooks/ that may import it.
const rawJSON = module + "/internal/rawjson"

// rawJSONImporters are the packages under hooks/ allowed to import
// rawJSON, as directories below the module root.
var rawJSONImporters = []string{"hooks/contract/metacontroller"}

// TestHookPackagesStayPure keeps the README's promise about the layers:
// the packages under hooks/ (pure hooks and their shared contract) touch no
// transport, no API client, and nothing of internal/ or cmd/, but for the
// request contract's fast decoder: hooks/contract/metacontroller reads the
// request's bytes, and every hook reads values through it.
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
		rel := filepath.ToSlash(strings.TrimPrefix(dir, ".."+string(filepath.Separator)))
		for _, imp := range pkg.Imports {
			if imp == rawJSON {
				if !slices.Contains(rawJSONImporters, rel) {
					t.Errorf("%s imports %s: reading a request's bytes belongs in hooks/contract/metacontroller, "+
						"behind a typed function the hook calls (docs/hooks.md, Where things live)", rel, imp)
				}
				continue
			}
			if imported(imp, forbidden) {
				t.Errorf("%s imports %s: hook packages are pure (docs/hooks.md, Where things live)", rel, imp)
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

// TestRawJSONStaysPure keeps the fast decoder a leaf the request contract
// can stand on: it imports nothing of the module and nothing that reaches
// the network, the operating system or a transport.
func TestRawJSONStaysPure(t *testing.T) {
	pkg, err := build.ImportDir(filepath.Join("..", "internal", "rawjson"), 0)
	if err != nil {
		t.Fatal(err)
	}
	forbidden := []string{module + "/", "net", "os", "syscall", "io/fs", "github.com/labstack/echo", "k8s.io/client-go"}
	for _, imp := range pkg.Imports {
		if imported(imp, forbidden) {
			t.Errorf("internal/rawjson imports %s: it reads bytes into values and nothing else", imp)
		}
	}
	if len(pkg.Imports) == 0 {
		t.Fatal("internal/rawjson lists no imports: is it still there?")
	}
}

// imported reports whether the import path imp is one of the packages, or
// below one of them: "net" forbids "net" and "net/http", not "netip".
func imported(imp string, packages []string) bool {
	for _, p := range packages {
		p = strings.TrimSuffix(p, "/")
		if imp == p || strings.HasPrefix(imp, p+"/") {
			return true
		}
	}
	return false
}
