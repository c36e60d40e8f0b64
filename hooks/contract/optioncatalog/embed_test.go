package optioncatalog

import (
	"strings"
	"testing"

	"github.com/c5c3/glance-hooks/hooks/contract/release"
)

// Every embedded file parses and is the release its name says: a file
// that did not would make its release read as having no catalog.
func TestEmbeddedCatalogsParse(t *testing.T) {
	entries, err := embedded.ReadDir("catalogs")
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(Releases()) {
		t.Errorf("%d files embedded, %d catalogs loaded: some file does not parse or is misnamed", len(entries), len(Releases()))
	}
	for _, e := range entries {
		r, err := release.Parse(strings.TrimSuffix(e.Name(), ".json"))
		if err != nil {
			t.Errorf("%s: not named after a release: %v", e.Name(), err)
			continue
		}
		if _, ok := For(r); !ok {
			t.Errorf("%s: not loaded", e.Name())
		}
	}
}

// The releases the issue asks for have a catalog, each with the store
// drivers glance_store ships.
func TestReleasesCovered(t *testing.T) {
	for _, name := range []string{"2025.1", "2025.2", "2026.1"} {
		r, _ := release.Parse(name)
		c, ok := For(r)
		if !ok {
			t.Errorf("no catalog of %s", name)
			continue
		}
		got := strings.Join(c.StoreDrivers(), ",")
		if want := "cinder,file,http,rbd,s3,swift,vmware"; got != want {
			t.Errorf("%s: store drivers %s, want %s", name, got, want)
		}
	}
}
