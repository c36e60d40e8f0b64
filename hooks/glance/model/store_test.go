package model

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/c5c3/glance-hooks/hooks/glance/storestate"
)

func TestStoreState(t *testing.T) {
	type want struct {
		rendered, pending bool
		reason            string
	}
	cases := map[string]struct {
		reason    string
		state     storestate.State
		projected bool
		want      want
	}{
		"Pending":        {"a store on its way is left out, not a fault", storestate.Pending, false, want{pending: true, reason: ReasonStorePending}},
		"Outdated":       {"an outdated store not held waits like a pending one", storestate.Outdated, false, want{pending: true, reason: ReasonStorePending}},
		"Skipped":        {"a fault leaves the store out as skipped", storestate.Skipped, false, want{reason: ReasonBackendSkipped}},
		"CAConflict":     {"a CA bundle conflict has its own reason", storestate.CAConflict, false, want{reason: ReasonCABundleConflict}},
		"Held":           {"a held store is rendered from the running section and says so", storestate.Held, true, want{rendered: true, reason: ReasonStoreOutdated}},
		"Rendered":       {"a rendered, projected store has nothing to say", storestate.Rendered, true, want{rendered: true}},
		"NotInRunning":   {"a rendered store the running config lacks says so", storestate.Rendered, false, want{rendered: true, reason: ReasonNotInRunningConfig}},
		"RetiringKept":   {"a retiring store kept is rendered", storestate.Retiring, true, want{rendered: true}},
		"RetiredDropped": {"a dropped retiring store is not rendered", storestate.Dropped, false, want{reason: ReasonBackendSkipped}},
		"RetiredLost":    {"a retiring store that cannot be kept is not rendered", storestate.Lost, false, want{reason: ReasonBackendSkipped}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := &Store{State: tc.state, Skipped: "why"}
			reason, _ := s.BackendStatus(tc.projected)
			got := want{rendered: tc.state.Rendered(), pending: tc.state.Waiting(), reason: reason}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
	t.Run("DefaultIgnored", func(t *testing.T) {
		s := &Store{State: storestate.Rendered, DefaultIgnored: true, Ignored: "isDefault is ignored"}
		if reason, msg := s.BackendStatus(true); reason != ReasonDefaultSetByControlPlane || msg != s.Ignored {
			t.Errorf("a hand-made default on a ControlPlane's Glance: got %s %q", reason, msg)
		}
		if reason, _ := s.BackendStatus(false); reason != ReasonNotInRunningConfig {
			t.Errorf("not in the running config goes before the ignored default: got %s", reason)
		}
	})
}
