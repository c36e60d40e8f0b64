package release

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestParse(t *testing.T) {
	cases := map[string]struct {
		reason string
		in     string
		want   Release
		err    bool
	}{
		"spring":     {"YYYY.1 is a release", "2026.1", Release{2026, 1}, false},
		"autumn":     {"YYYY.2 is a release", "2025.2", Release{2025, 2}, false},
		"no third":   {"a year has two releases", "2025.3", Release{}, true},
		"patch":      {"a release name has no patch part", "2025.2-p1", Release{}, true},
		"codename":   {"code names are not release names", "epoxy", Release{}, true},
		"empty":      {"nothing is no release", "", Release{}, true},
		"short year": {"the year has four digits", "25.2", Release{}, true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := Parse(tc.in)
			if (err != nil) != tc.err {
				t.Fatalf("%s: Parse(%q) error = %v, want error %v", tc.reason, tc.in, err, tc.err)
			}
			assert.Equal(t, tc.want, got, "%s: Parse(%q)", tc.reason, tc.in)
		})
	}
}

func TestOfTag(t *testing.T) {
	type want struct {
		r     Release
		named bool
		err   bool
	}
	cases := map[string]struct {
		reason string
		tag    string
		want   want
	}{
		"bare":         {"the default tag is the release", "2025.2", want{Release{2025, 2}, true, false}},
		"patch suffix": {"a patch build of the release", "2025.2-p1", want{Release{2025, 2}, true, false}},
		"dotted patch": {"a dotted patch of the release", "2026.1.3", want{Release{2026, 1}, true, false}},
		"no release":   {"a tag without a release names none", "latest", want{Release{}, false, false}},
		"digits only":  {"a date is not a release", "20250102", want{Release{}, false, false}},
		"bad minor":    {"starts like a release that does not exist", "2025.3", want{Release{}, true, true}},
		"long minor":   {"2025.21 is not 2025.2", "2025.21", want{Release{}, true, true}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r, named, err := OfTag(tc.tag)
			got := want{r, named, err != nil}
			assert.Equal(t, tc.want, got, "%s: OfTag(%q)", tc.reason, tc.tag)
		})
	}
}

func TestCheckStep(t *testing.T) {
	type want struct {
		step    Step
		message string
	}
	cases := map[string]struct {
		reason   string
		from, to Release
		want     want
	}{
		"same":         {"the same release is no upgrade", Release{2025, 2}, Release{2025, 2}, want{Same, ""}},
		"next in year": {"spring to autumn", Release{2025, 1}, Release{2025, 2}, want{Upgrade, ""}},
		"next year":    {"autumn to the next spring", Release{2025, 2}, Release{2026, 1}, want{Upgrade, ""}},
		"slurp":        {"a SLURP release to the next one", Release{2025, 1}, Release{2026, 1}, want{Upgrade, ""}},
		"slurp too far": {"a SLURP release may skip one release, not three",
			Release{2025, 1}, Release{2026, 2}, want{Skip, "2026.2 skips releases after the installed release 2025.1: upgrade to 2025.2, or to the next SLURP release 2026.1, first"}},
		"skip from autumn": {"an autumn release is not a SLURP release",
			Release{2025, 2}, Release{2026, 2}, want{Skip, "2026.2 skips releases after the installed release 2025.2: upgrade to 2026.1 first"}},
		"downgrade": {"a contracted schema cannot go back",
			Release{2026, 1}, Release{2025, 2}, want{Downgrade, "2025.2 is older than the installed release 2026.1: downgrades are not supported, a contracted schema cannot go back"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			step, msg := CheckStep(tc.from, tc.to)
			assert.Equal(t, tc.want, want{step, msg}, "%s: CheckStep(%s, %s)", tc.reason, tc.from, tc.to)
		})
	}
}

func TestTagProblem(t *testing.T) {
	r := Release{2025, 2}
	cases := map[string]struct {
		reason string
		tag    string
		want   string
	}{
		"the release":   {"the default tag", "2025.2", ""},
		"a patch build": {"a patch build of the release", "2025.2-p3", ""},
		"no release":    {"a tag that names no release is taken on trust", "dev", ""},
		"next release":  {"an image of another release", "2026.1", "names release 2026.1, not 2025.2"},
		"older release": {"an image of an older release", "2025.1-p1", "names release 2025.1, not 2025.2"},
		"no such":       {"a release that does not exist", "2025.7", "starts like a release that does not exist (a year has releases .1 and .2 only)"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, tc.want, TagProblem(tc.tag, r), "%s: TagProblem(%q, %s)", tc.reason, tc.tag, r)
		})
	}
}
