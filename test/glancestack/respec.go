package glancestack

import (
	"testing"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
)

// Respec replaces Options.Customize and applies the standalone Glance
// again: a day-two edit of its feature blocks (nil turns them all off).
func (s *Stack) Respec(t testing.TB, customize func(*api.GlanceSpec)) {
	t.Helper()
	if !s.standalone {
		t.Fatal("glancestack: Respec edits the standalone Glance; set Standalone")
	}
	s.spec.customize = customize
	s.applySpec(t)
}
