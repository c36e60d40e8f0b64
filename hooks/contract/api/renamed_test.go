package api

import (
	"os"
	"strings"
	"testing"
)

// TestChangelogListsEveryRename keeps the CHANGELOG's migration table and
// Renames in step: every rename is a row, with its note.
func TestChangelogListsEveryRename(t *testing.T) {
	raw, err := os.ReadFile("../../../CHANGELOG.md")
	if err != nil {
		t.Fatal(err)
	}
	log := string(raw)
	for _, r := range Renames {
		row := "| `" + r.Old + "` | `" + r.New + "` |"
		if !strings.Contains(log, row) {
			t.Errorf("the CHANGELOG's migration table has no row %s", row)
		}
		if r.Note != "" && !strings.Contains(log, r.Note) {
			t.Errorf("the CHANGELOG's row for %s lacks the note %q", r.Old, r.Note)
		}
	}
}

func TestRenamedTo(t *testing.T) {
	for old, want := range map[string]string{
		"replicas":     "deployment.replicas",
		"staging.size": "staging.sizeLimit",
		"scheduling":   "deployment.nodeSelector, deployment.affinity, deployment.tolerations, deployment.topologySpreadConstraints, deployment.priorityClassName",
		"region":       "",
		"stag":         "",
	} {
		if got := RenamedTo(old); got != want {
			t.Errorf("RenamedTo(%q) = %q, want %q", old, got, want)
		}
	}
}
