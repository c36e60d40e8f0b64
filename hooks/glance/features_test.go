package glance

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
)

// TestFeaturesDocumented keeps docs/hooks.md's list of features in step
// with the registries: every registered feature has its row, by the name it
// is registered under, no row names a feature that is not registered, and
// every spec part is a registered feature's.
func TestFeaturesDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "hooks.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, found := strings.Cut(string(doc), "| Feature | File | Contributes |")
	if !found {
		t.Fatal("docs/hooks.md has no table of the features")
	}
	table, _, _ = strings.Cut(table, "\n\n")
	documented := map[string]bool{}
	for _, row := range strings.Split(table, "\n")[2:] {
		cells := strings.Split(row, "|")
		if len(cells) > 2 {
			documented[strings.Trim(strings.TrimSpace(cells[1]), "`")] = true
		}
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
		if f.related == nil && f.gate == nil && f.conf == nil && f.paste == nil && f.everyPod == nil && f.apiPod == nil &&
			f.withDeployment == nil && f.reach == nil && f.events == nil && f.observe == nil && f.decide == nil && len(f.lastGood) == 0 && len(f.status) == 0 {
			t.Errorf("feature %q contributes nothing", f.name)
		}
	}
}
