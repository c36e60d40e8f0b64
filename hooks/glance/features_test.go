package glance

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/test/docsection"
)

// backquoted finds the names a docs table cell sets in backquotes.
var backquoted = regexp.MustCompile("`([^`]+)`")

// TestFeaturesDocumented keeps docs/hooks.md's list of features in step
// with the registries: every registered feature has its row, by the name it
// is registered under, no row names a feature that is not registered, and
// every spec part is a registered feature's.
func TestFeaturesDocumented(t *testing.T) {
	doc := repoFile(t, "docs", "hooks.md")
	documented := map[string]bool{}
	for _, cells := range featureRows(t, doc) {
		documented[strings.Trim(strings.TrimSpace(cells[1]), "`")] = true
	}
	registered := map[string]bool{}
	for _, f := range features {
		registered[f.name] = true
		if !documented[f.name] {
			t.Errorf("feature %q is registered in features.go and missing from docs/hooks.md, The features", f.name)
		}
	}
	for name := range documented {
		if !registered[name] {
			t.Errorf("docs/hooks.md, The features, names %q, which features.go does not register", name)
		}
	}
	// A spec part (its defaults and rules, hooks/contract/api) is a
	// feature's: registered here, it has its row above.
	for _, part := range api.GlanceParts() {
		if !registered[part.Name] {
			t.Errorf("spec part %q (api.GlanceParts) is no feature features.go registers, so docs/hooks.md, The features, does not list it", part.Name)
		}
	}
}

// TestFeaturesContribute: each feature is registered once, under a name of
// its own, and contributes to at least one step; a value with nothing set
// would be a line that does nothing.
func TestFeaturesContribute(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range features {
		if f.name == "" || seen[f.name] {
			t.Errorf("feature %q: every feature needs a name of its own", f.name)
		}
		seen[f.name] = true
		if f.related == nil && f.gate == nil && f.conf == nil && f.paste == nil && f.file == nil && f.everyPod == nil && f.apiPod == nil &&
			f.jobPod == nil && f.withDeployment == nil && f.reach == nil && f.events == nil && f.observe == nil && f.observeRelated == nil &&
			f.decide == nil && len(f.lastGood) == 0 && len(f.status) == 0 {
			t.Errorf("feature %q contributes nothing", f.name)
		}
	}
}

// featureRows are the cells of each row of docs/hooks.md's list of
// features.
func featureRows(t *testing.T, doc string) [][]string {
	t.Helper()
	return docRows(docTable(t, doc, "| Feature | File | Contributes |", "the features"))
}

// docRows are the cells of each row of a docs table (docTable), split at
// '|': a row's first cell is cells[1].
func docRows(table string) [][]string {
	var rows [][]string
	for _, row := range strings.Split(table, "\n")[2:] {
		if cells := strings.Split(row, "|"); len(cells) > 3 {
			rows = append(rows, cells)
		}
	}
	return rows
}

// TestRequestPathKnowsEveryFile keeps `make request-path`'s split honest:
// every production file directly in hooks/glance is either one of the
// hook's own (the Makefile's REQUEST_PATH_HOOK_FILES, counted in the core
// path) or a feature's own file named in docs/hooks.md's list of features,
// never both; and every file either list names exists.
func TestRequestPathKnowsEveryFile(t *testing.T) {
	hook := map[string]bool{}
	for _, name := range docsection.MakeWords(t, filepath.Join("..", "..", "Makefile"), "REQUEST_PATH_HOOK_FILES") {
		hook[name] = true
	}
	doc := repoFile(t, "docs", "hooks.md")
	feature := map[string]bool{}
	for _, cells := range featureRows(t, doc) {
		// The cell names files in backquotes: the feature's own in
		// hooks/glance bare, the others (a stage's, its spec part) with
		// their directory.
		for _, quoted := range backquoted.FindAllStringSubmatch(cells[2], -1) {
			if name := quoted[1]; !strings.Contains(name, "/") {
				feature[name] = true
			}
		}
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	present := map[string]bool{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		present[name] = true
		if hook[name] == feature[name] {
			t.Errorf("%s: either one of the hook's own files (the Makefile's REQUEST_PATH_HOOK_FILES) or a feature's (docs/hooks.md, The features), and only one", name)
		}
	}
	for name := range hook {
		if !present[name] {
			t.Errorf("the Makefile's REQUEST_PATH_HOOK_FILES names %s, which hooks/glance does not have", name)
		}
	}
	for name := range feature {
		if !present[name] {
			t.Errorf("docs/hooks.md, The features, names %s, which hooks/glance does not have", name)
		}
	}
}

// stageFiles finds a stage package in docs/hooks.md's table of the steps
// with the files the table lists for it: `hooks/glance/render` (`a.go`, ...).
var stageFiles = regexp.MustCompile("`hooks/glance/([a-z]+)` \\(([^)]*)\\)")

// TestStagesDocumented keeps docs/hooks.md's table of the steps in step
// with the tree: the files it lists for a stage package are that package's
// production files, all of them, so a reader who follows the table finds
// every file and no file that is gone.
func TestStagesDocumented(t *testing.T) {
	doc := repoFile(t, "docs", "hooks.md")
	stages := stageFiles.FindAllStringSubmatch(docTable(t, doc, "| Step | Where | What |", "the steps"), -1)
	if len(stages) < 4 {
		t.Fatalf("docs/hooks.md's table of the steps lists the files of %d stage packages; observe, decide, render and report each need their list", len(stages))
	}
	for _, stage := range stages {
		var listed []string
		for _, quoted := range backquoted.FindAllStringSubmatch(stage[2], -1) {
			listed = append(listed, quoted[1])
		}
		files, err := filepath.Glob(filepath.Join(stage[1], "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		var present []string
		for _, name := range files {
			if !strings.HasSuffix(name, "_test.go") {
				present = append(present, filepath.Base(name))
			}
		}
		assert.ElementsMatch(t, present, listed, "docs/hooks.md, the table of the steps, lists the files of hooks/glance/%s", stage[1])
	}
}

// repoFile is a file of the repository, by its path from the root.
func repoFile(t *testing.T, path ...string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(append([]string{"..", ".."}, path...)...))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// docTable is the table of docs/hooks.md under the header row given: its
// lines up to the blank line that ends it, the header's own excluded.
func docTable(t *testing.T, doc, header, what string) string {
	t.Helper()
	_, table, found := strings.Cut(doc, header)
	if !found {
		t.Fatalf("docs/hooks.md has no table of %s", what)
	}
	table, _, _ = strings.Cut(table, "\n\n")
	return table
}
