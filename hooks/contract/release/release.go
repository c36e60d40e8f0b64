// Package release reads OpenStack release names (YYYY.1, YYYY.2), the
// release an image tag names, and which upgrades between releases the
// Glance hooks walk. The admission webhook and the Glance sync hook decide
// with the same functions.
package release

import (
	"fmt"
	"regexp"
	"strconv"

	"github.com/c5c3/glance-hooks/hooks/contract/excerpt"
)

// Release is one OpenStack release: YYYY.1 (spring) or YYYY.2 (autumn).
type Release struct {
	Year, Minor int
}

func (r Release) String() string { return fmt.Sprintf("%d.%d", r.Year, r.Minor) }

// IsZero reports whether r is the zero value (no release).
func (r Release) IsZero() bool { return r == Release{} }

// Before reports whether r is an older release than o.
func (r Release) Before(o Release) bool {
	return r.Year < o.Year || (r.Year == o.Year && r.Minor < o.Minor)
}

// AtLeast reports whether r is o or newer.
func (r Release) AtLeast(o Release) bool { return !r.Before(o) }

// IsSLURP reports whether r is a "skip level upgrade release process"
// release: since 2023.1 every YYYY.1 is one, and an upgrade may go from one
// SLURP release straight to the next.
func (r Release) IsSLURP() bool { return r.Minor == 1 && r.Year >= 2023 }

var (
	namePattern = regexp.MustCompile(`^([0-9]{4})\.([0-9]+)$`)
	// tagPattern: a tag names a release when it starts with YYYY.N and the
	// next character, if any, is not a digit ("2025.2", "2025.2-p1",
	// "2025.2.1" name 2025.2).
	tagPattern = regexp.MustCompile(`^([0-9]{4})\.([0-9]+)(?:[^0-9]|$)`)
)

// Parse reads a release name. Only YYYY.1 and YYYY.2 exist.
func Parse(s string) (Release, error) {
	m := namePattern.FindStringSubmatch(s)
	if m == nil {
		return Release{}, fmt.Errorf("%s is not an OpenStack release (YYYY.1 or YYYY.2)", excerpt.Value(s))
	}
	return fromParts(s, m[1], m[2])
}

func fromParts(s, year, minor string) (Release, error) {
	y, _ := strconv.Atoi(year)
	n, err := strconv.Atoi(minor)
	if err != nil || (n != 1 && n != 2) {
		return Release{}, fmt.Errorf("%s is not an OpenStack release: a year has releases .1 and .2 only", excerpt.Value(s))
	}
	return Release{Year: y, Minor: n}, nil
}

// OfTag returns the release an image tag names. named is false when the tag
// does not start with a release ("latest", "dev"); err is set when it starts
// like one that does not exist ("2025.3").
func OfTag(tag string) (r Release, named bool, err error) {
	m := tagPattern.FindStringSubmatch(tag)
	if m == nil {
		return Release{}, false, nil
	}
	r, err = fromParts(tag, m[1], m[2])
	return r, true, err
}

// next is the release after r.
func (r Release) next() Release {
	if r.Minor == 1 {
		return Release{r.Year, 2}
	}
	return Release{r.Year + 1, 1}
}

// Step is what going from one release's schema to another's is.
type Step int

const (
	// Same: the same release; a new image of it only needs a db sync.
	Same Step = iota
	// Upgrade: the next release, or the next SLURP release from a SLURP one.
	Upgrade
	// Downgrade: an older release; a contracted schema cannot go back.
	Downgrade
	// Skip: a newer release that is neither the next one nor the next SLURP.
	Skip
)

// CheckStep classifies going from release from to release to, with a
// message for a Downgrade or Skip that says what to do instead.
func CheckStep(from, to Release) (Step, string) {
	switch {
	case to == from:
		return Same, ""
	case to.Before(from):
		return Downgrade, fmt.Sprintf("%s is older than the installed release %s: downgrades are not supported, a contracted schema cannot go back", to, from)
	case to == from.next():
		return Upgrade, ""
	case from.IsSLURP() && to == (Release{from.Year + 1, 1}):
		return Upgrade, ""
	case from.IsSLURP():
		return Skip, fmt.Sprintf("%s skips releases after the installed release %s: upgrade to %s, or to the next SLURP release %d.1, first", to, from, from.next(), from.Year+1)
	default:
		return Skip, fmt.Sprintf("%s skips releases after the installed release %s: upgrade to %s first", to, from, from.next())
	}
}

// TagProblem says why an image with this tag cannot run release r, or ""
// when it can: a tag that starts with a release must start with r. A tag
// that names no release ("latest") is taken on trust.
func TagProblem(tag string, r Release) string {
	t, named, err := OfTag(tag)
	switch {
	case !named:
		return ""
	case err != nil:
		return "starts like a release that does not exist (a year has releases .1 and .2 only)"
	case t != r:
		return fmt.Sprintf("names release %s, not %s", t, r)
	}
	return ""
}

// UWSGIFrom is the first release whose glance-api runs under uWSGI: Glance
// deprecated its eventlet server in 2026.1 and named uWSGI its production
// server there, and the reference operator runs 2026.1 on under uWSGI.
var UWSGIFrom = Release{Year: 2026, Minor: 1}
