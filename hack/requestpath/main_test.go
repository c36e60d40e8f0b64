package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEnteredKeepsFilesWithABlockThatRan(t *testing.T) {
	profile := "mode: set\n" +
		module + "hooks/glance/sync.go:10.2,12.3 2 1\n" +
		module + "hooks/glance/sync.go:14.2,15.3 1 0\n" +
		module + "hooks/glance/gateway.go:20.2,22.3 2 0\n" +
		module + "hooks/glance/render/config.go:5.1,6.2 1 3\n"
	files, err := entered(strings.NewReader(profile))
	require.NoError(t, err)
	assert.Equal(t, []string{"hooks/glance/render/config.go", "hooks/glance/sync.go"}, files)

	_, err = entered(strings.NewReader("mode: set\nnot a profile line\n"))
	assert.ErrorContains(t, err, "is not file:block statements count")
}

func TestCountSplitsFeaturesFromTheCore(t *testing.T) {
	p := count([]string{
		"hooks/contract/api/glance.go",
		"hooks/glance/gateway.go",
		"hooks/glance/imagecache.go",
		"hooks/glance/render/config.go",
		"hooks/glance/render/paste.go",
		"hooks/glance/sync.go",
	}, []string{"sync.go", "features.go"})
	assert.Equal(t, 5, p.Glance)
	assert.Equal(t, 2, p.Features)
	assert.Equal(t, 3, p.Core())
	assert.Equal(t, map[string]int{"render": 2}, p.Stages)
}

// TestDocsQuoteTheRequestPath measures the request path as make
// request-path does and fails while docs/hooks.md quotes other figures:
// the files under hooks/, those of hooks/glance and its stages, the
// features' and the core path's, and each stage's.
func TestDocsQuoteTheRequestPath(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the fixture test with coverage; not in -short")
	}
	root := filepath.Join("..", "..")
	makefile, err := os.ReadFile(filepath.Join(root, "Makefile"))
	require.NoError(t, err)
	fixture := makeVariable(t, string(makefile), "REQUEST_PATH_CASE ?= ")
	hookFiles := strings.Fields(makeVariable(t, string(makefile), "REQUEST_PATH_HOOK_FILES := "))
	p, err := Measure(root, fixture, hookFiles)
	require.NoError(t, err)

	raw, err := os.ReadFile(filepath.Join(root, "docs", "hooks.md"))
	require.NoError(t, err)
	doc := strings.Join(strings.Fields(string(raw)), " ")
	for _, quoted := range []string{
		"`" + fixture + "`: " + strconv.Itoa(len(p.Files)) + " files under `hooks/`, " + strconv.Itoa(p.Glance) + " of them in `hooks/glance` and its stages.",
		"It splits those " + strconv.Itoa(p.Glance) + ": " + strconv.Itoa(p.Features) + " are the features' own files, and " + strconv.Itoa(p.Core()) + " are the core path",
	} {
		assert.True(t, strings.Contains(doc, quoted), "docs/hooks.md, Inside the Glance hook, does not say %q, as make request-path measures the request path", quoted)
	}
	stages := regexp.MustCompile(`and the stages' \(([^)]*)\)`).FindStringSubmatch(doc)
	require.NotNil(t, stages, "docs/hooks.md, Inside the Glance hook, gives the files each stage adds to the core path: (storestate 1, model 3, ...)")
	documented := map[string]int{}
	for _, pair := range strings.Split(stages[1], ", ") {
		name, n, _ := strings.Cut(pair, " ")
		documented[name], err = strconv.Atoi(n)
		require.NoError(t, err, "stage count %q", pair)
	}
	assert.Equal(t, p.Stages, documented, "docs/hooks.md, Inside the Glance hook: the files the request enters in each stage")
}

// makeVariable is the value the Makefile gives a variable on the line that
// starts with assignment.
func makeVariable(t *testing.T, makefile, assignment string) string {
	t.Helper()
	_, value, found := strings.Cut(makefile, "\n"+assignment)
	require.True(t, found, "the Makefile has no line %q", assignment)
	value, _, _ = strings.Cut(value, "\n")
	return strings.TrimSpace(value)
}
