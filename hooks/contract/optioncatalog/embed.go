package optioncatalog

import (
	"embed"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/c5c3/glance-hooks/hooks/contract/release"
)

// The catalogs `make catalogs` writes, one per release, named <release>.json.
//
//go:embed catalogs/*.json
var embedded embed.FS

var (
	loadOnce sync.Once
	loaded   map[release.Release]*Catalog
)

// load parses the embedded catalogs once. A file that does not parse is
// left out, so its release reads as having no catalog; a test holds every
// embedded file to parse, so that never ships.
func load() map[release.Release]*Catalog {
	loadOnce.Do(func() {
		loaded = map[release.Release]*Catalog{}
		entries, _ := embedded.ReadDir("catalogs")
		for _, e := range entries {
			r, err := release.Parse(strings.TrimSuffix(e.Name(), ".json"))
			if err != nil {
				continue
			}
			data, err := embedded.ReadFile(path.Join("catalogs", e.Name()))
			if err != nil {
				continue
			}
			if c, err := Parse(data); err == nil && c.Release == r.String() {
				loaded[r] = c
			}
		}
	})
	return loaded
}

// For returns the catalog of release r; false when there is none.
func For(r release.Release) (*Catalog, bool) {
	c, ok := load()[r]
	return c, ok
}

// Releases lists the releases that have a catalog, oldest first.
func Releases() []release.Release {
	out := make([]release.Release, 0, len(load()))
	for r := range load() {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Before(out[j]) })
	return out
}

// Lookup says what section and key are to the glance-api of release r:
// NoCatalog when there is no catalog of r (admission accepts the key with
// a warning then), otherwise as Catalog.Lookup.
func Lookup(r release.Release, section, key string, stores StoreSections) Verdict {
	c, ok := For(r)
	if !ok {
		return Verdict{Status: NoCatalog}
	}
	return c.Lookup(section, key, stores)
}
