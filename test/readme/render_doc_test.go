package readme

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// docs/render.md's --diff example is the golden output of the same
// command (test/fixtures/render/diff-switch-default), hashes written as
// placeholders: its object list and verdict may not drift from it.
func TestRenderDocsDiffExampleIsTheFixture(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "render.md"))
	require.NoError(t, err)
	golden, err := os.ReadFile(filepath.Join("..", "..", "test", "fixtures", "render", "diff-switch-default", "stdout"))
	require.NoError(t, err)
	args, err := os.ReadFile(filepath.Join("..", "..", "test", "fixtures", "render", "diff-switch-default", "args"))
	require.NoError(t, err)

	prompt := "$ bin/glance-hooks render " + strings.Join(strings.Fields(string(args)), " ") + "\n"
	_, example, found := strings.Cut(string(doc), prompt)
	require.True(t, found, "docs/render.md shows %q", prompt)
	example, _, _ = strings.Cut(example, "\nConditions that change")

	// Which hash is the new config is what the created ConfigMap replaces
	// says; the objects are listed by name, so their order follows the
	// hashes.
	replaced := regexp.MustCompile(`created +ConfigMap +openstack/(controlplane-glance-config-[0-9a-f]{10}) +\(replaces (controlplane-glance-config-[0-9a-f]{10})\)`).
		FindStringSubmatch(string(golden))
	require.Len(t, replaced, 3, "the fixture creates a config ConfigMap that replaces another")
	want := strings.NewReplacer(replaced[1], "controlplane-glance-config-<new>", replaced[2], "controlplane-glance-config-<old>").Replace(string(golden))
	want = regexp.MustCompile(`-(backends|db-sync|register)-[0-9a-f]{10}`).ReplaceAllString(want, "-$1-<hash>")
	want, _, _ = strings.Cut(want, "\nConditions that change")
	assert.Equal(t, want, example)
}
