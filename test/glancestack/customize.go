package glancestack

import (
	"testing"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
)

// Recustomize replaces Options.Customize of a standalone stack and applies
// the Glance again, as an edit of its spec would; Reconcile then rolls the
// pods onto the new config.
func (s *Stack) Recustomize(t testing.TB, f func(*api.GlanceSpec)) {
	t.Helper()
	if !s.standalone {
		t.Fatal("glancestack: Recustomize edits the standalone Glance; set Standalone")
	}
	s.spec.customize = f
	s.applySpec(t)
}
