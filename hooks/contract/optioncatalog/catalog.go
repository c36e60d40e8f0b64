// Package optioncatalog says whether glance-api of a given OpenStack release
// has a config option: a section and key are known, a deprecated alias of
// another option (named), or unknown. The catalogs are generated from the
// sources of glance, glance_store, keystonemiddleware and the oslo libraries
// of each release by hack/optioncatalog (`make catalogs`) and embedded;
// docs/catalogs.md says what they hold and how they are made.
package optioncatalog

import (
	"encoding/json"
	"fmt"
	"sort"
)

// Catalog is the options of one release's glance-api.
type Catalog struct {
	// Release is the name the catalog was generated for ("2025.2").
	Release string
	groups  map[string]section
	// aliases: old section -> old key -> the option it stands for, over
	// all groups (an alias may be read from a section that holds no
	// option any more: [DATABASE] sql_connection).
	aliases map[string]map[string]Option
	drivers map[string]section
}

// section is one config section's option names, those deprecated for
// removal and, for a store driver, its aliases (old key -> new key in the
// same section).
type section struct {
	options    map[string]bool
	forRemoval map[string]bool
	aliases    map[string]string
}

// Option names one option of a config file.
type Option struct {
	Section, Key string
}

func (o Option) String() string { return fmt.Sprintf("[%s] %s", o.Section, o.Key) }

// The JSON the generator writes; fields the lookup does not need (sources,
// namespaces) are only read by people and the cross-check.
type fileSection struct {
	Options              []string                       `json:"options"`
	DeprecatedForRemoval []string                       `json:"deprecatedForRemoval"`
	Aliases              map[string]map[string][]string `json:"aliases"`
}

type fileDriver struct {
	Options              []string          `json:"options"`
	DeprecatedForRemoval []string          `json:"deprecatedForRemoval"`
	Aliases              map[string]string `json:"aliases"`
	EntryPoints          []string          `json:"entryPoints"`
}

type file struct {
	Release      string                 `json:"release"`
	Groups       map[string]fileSection `json:"groups"`
	StoreDrivers map[string]fileDriver  `json:"storeDrivers"`
}

// Parse reads a catalog the generator wrote.
func Parse(data []byte) (*Catalog, error) {
	var f file
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("option catalog: %w", err)
	}
	if f.Release == "" || len(f.Groups) == 0 {
		return nil, fmt.Errorf("option catalog: no release or no sections")
	}
	c := &Catalog{Release: f.Release, groups: map[string]section{}, aliases: map[string]map[string]Option{}, drivers: map[string]section{}}
	for name, g := range f.Groups {
		c.groups[name] = newSection(g.Options, g.DeprecatedForRemoval)
		for oldSection, keys := range g.Aliases {
			for oldKey, repl := range keys {
				if len(repl) != 2 {
					return nil, fmt.Errorf("option catalog %s: alias [%s] %s names %d parts, want section and key", f.Release, oldSection, oldKey, len(repl))
				}
				c.alias(oldSection, oldKey, Option{Section: repl[0], Key: repl[1]})
			}
		}
	}
	for name, d := range f.StoreDrivers {
		s := newSection(d.Options, d.DeprecatedForRemoval)
		s.aliases = d.Aliases
		c.drivers[name] = s
	}
	return c, nil
}

// alias records an old name; when two options claim it (the groups are
// read in map order) the smaller replacement wins, so a lookup's answer
// does not depend on that order.
func (c *Catalog) alias(oldSection, oldKey string, to Option) {
	if c.aliases[oldSection] == nil {
		c.aliases[oldSection] = map[string]Option{}
	}
	if prev, ok := c.aliases[oldSection][oldKey]; ok && (prev.Section < to.Section || (prev.Section == to.Section && prev.Key <= to.Key)) {
		return
	}
	c.aliases[oldSection][oldKey] = to
}

func newSection(options, forRemoval []string) section {
	s := section{options: map[string]bool{}, forRemoval: map[string]bool{}}
	for _, o := range options {
		s.options[o] = true
	}
	for _, o := range forRemoval {
		s.forRemoval[o] = true
	}
	return s
}

// StoreDrivers lists the store driver types the catalog knows ("s3",
// "file", ...), sorted.
func (c *Catalog) StoreDrivers() []string {
	out := make([]string, 0, len(c.drivers))
	for d := range c.drivers {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}

// HasSection reports whether glance-api registers options in section
// (store sections aside) or reads old names from it.
func (c *Catalog) HasSection(section string) bool {
	_, ok := c.groups[section]
	_, alias := c.aliases[section]
	return ok || alias
}
