package optioncatalog

// Status is what a catalog says of a section and key.
type Status int

const (
	// Unknown: the release's glance-api has no such option.
	Unknown Status = iota
	// Known: an option of the release (ForRemoval says whether it is
	// deprecated for removal).
	Known
	// Deprecated is an old name oslo.config still reads for Replacement.
	Deprecated
	// NoCatalog: there is no catalog of the release, so nothing is known.
	NoCatalog
)

func (s Status) String() string {
	switch s {
	case Known:
		return "known"
	case Deprecated:
		return "deprecated"
	case NoCatalog:
		return "no catalog"
	}
	return "unknown"
}

// Verdict is the answer of a lookup.
type Verdict struct {
	Status Status
	// Replacement is the option a Deprecated name stands for.
	Replacement Option
	// ForRemoval: a Known option deprecated for removal (glance-api logs a
	// warning when it is set and a later release may drop it).
	ForRemoval bool
}

// StoreSections names the sections that are stores (the ids in
// enabled_backends, and the reserved os_glance_staging_store and
// os_glance_tasks_store) with their driver type as enabled_backends writes
// it ("s3", "file"). glance_store registers a driver's options in each
// section of that type, so such a section takes those options and no
// other, whatever its name.
type StoreSections map[string]string

// Lookup says what section and key are to this release's glance-api.
// Section and key are compared as oslo.config does: exactly (DEFAULT is
// upper case; a store may be called "default").
func (c *Catalog) Lookup(sectionName, key string, stores StoreSections) Verdict {
	if driver, ok := stores[sectionName]; ok {
		s, ok := c.drivers[driver]
		if !ok {
			return Verdict{Status: Unknown}
		}
		if v := s.known(key); v.Status == Known {
			return v
		}
		if to, ok := s.aliases[key]; ok {
			return Verdict{Status: Deprecated, Replacement: Option{Section: sectionName, Key: to}}
		}
		return Verdict{Status: Unknown}
	}
	if s, ok := c.groups[sectionName]; ok {
		if v := s.known(key); v.Status == Known {
			return v
		}
	}
	if to, ok := c.aliases[sectionName][key]; ok {
		return Verdict{Status: Deprecated, Replacement: to}
	}
	return Verdict{Status: Unknown}
}

func (s section) known(key string) Verdict {
	if s.options[key] {
		return Verdict{Status: Known, ForRemoval: s.forRemoval[key]}
	}
	return Verdict{Status: Unknown}
}
