package refexamples

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

// RefusedDir holds the reference's suites of refused CRs (refused/README.md).
const RefusedDir = "refused"

// Step is one apply of a suite of refused CRs (refused/<suite>/steps.yaml).
// The words a refusal must carry are the reference suite's (Refused)
// unless the step says this project answers otherwise: everywhere (Here),
// at the API server alone (APIServer, the CRD in front of the webhook), or
// not in the sync hooks (AdmissionOnly); Why says why.
type Step struct {
	// File is applied, as the suite applies it: created, or updated when
	// an earlier step of the suite created an object of its name.
	File string `json:"file"`
	// Refused are the words the reference's suite requires of the error;
	// none means the step must be admitted.
	Refused []string `json:"refused,omitempty"`
	// Schema are those of Refused the API server's own schema check
	// writes: the CRD refuses the object before the webhook is asked, and
	// the hooks say the rule in their own words.
	Schema []string `json:"schema,omitempty"`
	// Here is this project's answer, at every gate.
	Here *Outcome `json:"here,omitempty"`
	// APIServer is the API server's answer where the CRD refuses first for
	// another rule; the hooks answer as Refused (or Here) says.
	APIServer *Outcome `json:"apiServer,omitempty"`
	// AdmissionOnly is set, to the reason, for a rule the sync hooks do not
	// hold: one of a new object, or between objects.
	AdmissionOnly string `json:"admissionOnly,omitempty"`
	Why           string `json:"why,omitempty"`
}

// Outcome is what this project answers a step with instead of the
// reference's answer.
type Outcome struct {
	// Refused are the words of this project's refusal; none admits it.
	Refused []string `json:"refused,omitempty"`
}

// Expected are the words the hooks' refusal of the step must carry, nil
// when they must admit it.
func (s Step) Expected() []string {
	if s.Here != nil {
		return s.Here.Refused
	}
	return s.Refused
}

// HookWords are the Expected words but those of the API server's schema
// check.
func (s Step) HookWords() []string {
	return slices.DeleteFunc(slices.Clone(s.Expected()), func(w string) bool { return slices.Contains(s.Schema, w) })
}

// APIServerWords are the words the API server's refusal of the step must
// carry, nil when it must admit it.
func (s Step) APIServerWords() []string {
	if s.APIServer != nil {
		return s.APIServer.Refused
	}
	return s.Expected()
}

// explained reports whether every answer the step gives otherwise says why.
func (s Step) explained() bool {
	return (s.Here == nil && s.APIServer == nil && s.AdmissionOnly == "") || s.Why != ""
}

// Suites are the suites of refused CRs, by directory name, each step's file
// checked to exist, and every file of the directory named by a step.
func Suites(t testing.TB, dir string) map[string][]Step {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	suites := map[string][]Step{}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(dir, e.Name(), "steps.yaml"))
		require.NoError(t, err)
		var doc struct {
			Steps []Step `json:"steps"`
		}
		require.NoError(t, yaml.UnmarshalStrict(raw, &doc), "%s/steps.yaml", e.Name())
		files, err := filepath.Glob(filepath.Join(dir, e.Name(), "[0-9]*.yaml"))
		require.NoError(t, err)
		var named []string
		for _, s := range doc.Steps {
			require.True(t, s.explained(), "%s: a step answered otherwise here says why", s.File)
			named = append(named, filepath.Join(dir, e.Name(), s.File))
		}
		slices.Sort(named)
		require.Equal(t, files, slices.Compact(named), "%s: every file is a step's", e.Name())
		suites[e.Name()] = doc.Steps
	}
	return suites
}
