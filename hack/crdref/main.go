// Command crdref writes the field reference, docs/reference/<kind>.md,
// from the CRDs in schemas/. Run it from the repository's root after
// editing a CRD; a test fails while the pages are stale.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/c5c3/glance-hooks/internal/crdref"
)

func main() {
	out := flag.String("out", crdref.Dir, "directory the pages are written to")
	flag.Parse()
	if err := write(*out); err != nil {
		fmt.Fprintln(os.Stderr, "crdref:", err)
		os.Exit(1)
	}
}

func write(dir string) error {
	pages, err := crdref.Pages()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, page := range pages {
		if err := os.WriteFile(filepath.Join(dir, name), page, 0o644); err != nil {
			return err
		}
	}
	return nil
}
