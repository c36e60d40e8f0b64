// Package release holds the release tooling to what a tag needs: notes
// from CHANGELOG.md.
package release

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// notes runs hack/release-notes.sh with args and CHANGELOG (empty: the
// repository's).
func notes(t *testing.T, changelog string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(filepath.Join("..", "..", "hack", "release-notes.sh"), args...)
	cmd.Env = os.Environ()
	if changelog != "" {
		cmd.Env = append(cmd.Env, "CHANGELOG="+changelog)
	}
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil {
		require.ErrorAs(t, err, &exit)
		return string(out), exit.ExitCode()
	}
	return string(out), 0
}

func TestReleaseNotesAreTheTagsChangelogSection(t *testing.T) {
	out, code := notes(t, "", "v0.2.0")
	require.Equal(t, 0, code, out)
	assert.Contains(t, out, "### Added")
	assert.Contains(t, out, "make push REGISTRY=")
	assert.NotContains(t, out, "## [", "the section only, without its heading or the next one")
	assert.NotContains(t, out, "The first release, 0.1.0")

	// The chart's appVersion is a release with notes.
	chart, err := os.ReadFile(filepath.Join("..", "..", "charts", "glance-hooks", "Chart.yaml"))
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^appVersion: "?([^"\n]+)"?$`).FindSubmatch(chart)
	require.NotNil(t, m)
	out, code = notes(t, "", "v"+string(m[1]))
	assert.Equal(t, 0, code, "CHANGELOG.md has a section for appVersion %s: %s", m[1], out)
}

func TestReleaseNotesRefuseATagWithout(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "CHANGELOG.md")
	require.NoError(t, os.WriteFile(empty, []byte("# Changelog\n\n## [1.0.0]\n\n## [0.9.0]\n\n- something\n"), 0o644))
	cases := map[string]struct {
		changelog, tag string
		code           int
		want           string
	}{
		"no section":    {"", "v99.0.0", 1, `no notes for 99.0.0: add a "## [99.0.0]" section`},
		"empty section": {empty, "v1.0.0", 1, "no notes for 1.0.0"},
		"not a version": {"", "release-candidate", 2, "release-candidate is no semantic version tag"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			out, code := notes(t, tc.changelog, tc.tag)
			assert.Equal(t, tc.code, code, out)
			assert.Contains(t, out, tc.want)
		})
	}
	out, code := notes(t, empty, "0.9.0")
	assert.Equal(t, 0, code, out)
	assert.Equal(t, "- something\n", out)
}
