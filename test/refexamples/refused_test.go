package refexamples

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/simulate/chain"
	"github.com/c5c3/glance-hooks/simulate/render"
)

// TestReferenceRefusedSuitesAtAdmission: each suite of the reference's
// refused CRs, applied in its order through the validate hook itself (the
// webhook without the API server, so without the CRD's rules in front of
// it): every refused step is refused in the words the suite waits for,
// every other step admitted. test/webhook applies the suites through a
// real API server, CRDs in front.
func TestReferenceRefusedSuitesAtAdmission(t *testing.T) {
	suites := Suites(t, RefusedDir)
	require.Len(t, suites, 3)
	for name, steps := range suites {
		t.Run(name, func(t *testing.T) {
			var stored []chain.Object
			for _, s := range steps {
				for _, d := range Published(t, []string{filepath.Join(RefusedDir, name, s.File)}) {
					old := sameObject(stored, d.Object)
					err := render.Admission(d.Object, old, stored)
					if s.Expected() == nil {
						require.NoError(t, err, "%s is admitted", s.File)
						stored = replaced(stored, d.Object)
						continue
					}
					if assert.Error(t, err, "%s is refused", s.File) {
						for _, w := range s.HookWords() {
							assert.Contains(t, err.Error(), w, "%s", s.File)
						}
					}
				}
			}
		})
	}
}

// sameObject is the stored object o would update, nil when o is new.
func sameObject(stored []chain.Object, o chain.Object) chain.Object {
	for _, s := range stored {
		if chain.RefOf(s) == chain.RefOf(o) {
			return s
		}
	}
	return nil
}

// replaced is stored with o in place of the object of its name, or added.
func replaced(stored []chain.Object, o chain.Object) []chain.Object {
	out := slices.DeleteFunc(slices.Clone(stored), func(s chain.Object) bool { return chain.RefOf(s) == chain.RefOf(o) })
	return append(out, o)
}

// judgingCondition is the condition a parent's sync hook refuses a spec
// in, by kind.
var judgingCondition = map[string]string{"Glance": "ConfigRendered", "GlanceBackend": "StoreRendered", "ControlPlane": "GlanceProjected"}

// TestReferenceRefusedSuitesAtSync: the same suites with no webhook in
// front, as a cluster without it stores them: every refused step is created
// and its sync hook refuses it on its own, in the words the suite waits for
// (False on the condition that judges its spec). Steps that update an
// earlier step's object are admission's alone: a sync sees no old object;
// so are those steps.yaml marks admissionOnly.
func TestReferenceRefusedSuitesAtSync(t *testing.T) {
	noWebhook := render.Options{Validate: func(_, _ chain.Object, _ []chain.Object) error { return nil }}
	for name, steps := range Suites(t, RefusedDir) {
		t.Run(name, func(t *testing.T) {
			var earlier []render.Doc
			for _, s := range steps {
				docs := Published(t, []string{filepath.Join(RefusedDir, name, s.File)})
				if s.Expected() == nil || s.AdmissionOnly != "" || updates(earlier, docs) {
					earlier = append(earlier, docs...)
					continue
				}
				st, err := render.Render(append(slices.Clone(earlier), docs...), noWebhook)
				require.NoError(t, err, "%s: the hooks converge", s.File)
				for _, d := range docs {
					c, found := judgingConditionOf(st.Objects(), d.Ref(), judgingCondition[d.Ref().Kind])
					if assert.True(t, found, "%s: %s reports %s", s.File, d.Ref().Kind, judgingCondition[d.Ref().Kind]) {
						assert.Equal(t, "False", c.Status, "%s: %s refuses it: %s", s.File, c.Type, c.Message)
						for _, w := range s.HookWords() {
							assert.Contains(t, c.Message, w, "%s", s.File)
						}
					}
				}
			}
		})
	}
}

// updates reports whether one of docs names an object of earlier.
func updates(earlier, docs []render.Doc) bool {
	for _, d := range docs {
		for _, e := range earlier {
			if e.Ref() == d.Ref() {
				return true
			}
		}
	}
	return false
}

// judgingConditionOf is the condition of type typ of the object ref names.
func judgingConditionOf(objs []chain.Object, ref chain.Ref, typ string) (render.Condition, bool) {
	for _, o := range objs {
		if chain.RefOf(o) != ref {
			continue
		}
		for _, c := range render.ConditionsOf(o) {
			if c.Type == typ {
				return c, true
			}
		}
	}
	return render.Condition{}, false
}
