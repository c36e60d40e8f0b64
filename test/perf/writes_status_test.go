package perf

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/simulate/chain"
	"github.com/c5c3/glance-hooks/test/guide"
)

// statusWrites counts the status writes of a step per parent, by name.
func statusWrites(step WriteStep) map[string]int {
	n := map[string]int{}
	for _, wr := range step.Log {
		if wr.Verb == chain.VerbStatus {
			n[wr.Ref.Kind+" "+wr.Ref.Name]++
		}
	}
	return n
}

// Each parent's status is written at most twice on the guide's install,
// once when it asks for its children and once when they are Ready, in
// every sync order; the Glance writes four times in the order the table
// counts, and no fewer can be true to the guide and the reference
// (docs/performance.md, "Which Glance writes remain"): its first status
// (a sibling store still on its way), BackendsReady turning
// AllBackendsProjected with the first render and schema Job, which the
// guide's words tie to every store being projected, DatabaseReady turning
// DatabaseSynced with the Deployment asked for, which the reference reports
// the moment its schema Job succeeds, and Ready. Steps 2 and 3 count what
// they write now, so a change that adds a write fails here.
func TestStatusWritesPerParent(t *testing.T) {
	const (
		cp        = "ControlPlane controlplane"
		glance    = "Glance controlplane-glance"
		def       = "GlanceBackend controlplane-glance-default"
		secondary = "GlanceBackend controlplane-glance-secondary"
	)
	cases := map[string]struct {
		reason string
		order  func(*chain.World)
		want   map[string]map[string]int
	}{
		"ReactAtOnce": {
			reason: "the order of the table: the Glance syncs after every change of a backend",
			order:  func(w *chain.World) { w.ReactAtOnce = true },
			want: map[string]map[string]int{
				"install": {cp: 2, glance: 4, def: 2, secondary: 2},
				"Step 2":  {cp: 2, glance: 2, secondary: 2},
				"Step 3":  {cp: 3, glance: 2, def: 1, secondary: 1},
			},
		},
		"ControllerByController": {
			reason: "the Glance sees both backends' first renders at once: no store on its way to report",
			order:  func(w *chain.World) { w.ReactAtOnce = false },
			want: map[string]map[string]int{
				"install": {cp: 2, glance: 3, def: 2, secondary: 2},
				"Step 2":  {cp: 2, glance: 2, secondary: 2},
				"Step 3":  {cp: 3, glance: 2, def: 1, secondary: 1},
			},
		},
		"ReactBetweenWrites": {
			reason: "the Glance syncs between the writes of one sync, and sees one backend render before its sibling exists (a real cluster does not show that)",
			order:  func(w *chain.World) { w.ReactAtOnce, w.ReactBetweenWrites = true, true },
			want: map[string]map[string]int{
				"install": {cp: 2, glance: 6, def: 2, secondary: 2},
				"Step 2":  {cp: 2, glance: 3, secondary: 2},
				"Step 3":  {cp: 3, glance: 3, def: 1, secondary: 1},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := map[string]map[string]int{}
			for _, step := range loggedWalk(t, tc.order) {
				got[step.Name] = statusWrites(step)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nstatus writes per step and parent, -want +got:\n%s", tc.reason, diff)
			}
			for _, p := range []string{cp, def, secondary} {
				assert.LessOrEqual(t, got["install"][p], 2, "%s: %s's status is written at most twice on install", tc.reason, p)
			}
		})
	}
}

// A converged world resyncs without a write: every parent synced again (as
// Metacontroller's informers replay every object each
// --cache-flush-interval), now, once a Normal Event's freshness is over,
// once the API server's TTL has deleted the Events, and a day later, after
// each step of the walk. Nothing in a status moves with the clock, and no
// Event is made again.
func TestResyncWritesNothing(t *testing.T) {
	for _, order := range syncOrders {
		t.Run(order.name, func(t *testing.T) {
			w, err := newGuideWorld(chain.Controllers(), Now, walkOptions{order: order.set})
			require.NoError(t, err)
			cp, err := guideObject(guide.ControlPlane)
			require.NoError(t, err)
			switched, err := guideObject(guide.ControlPlane)
			require.NoError(t, err)
			entries := backendsOf(switched)
			entries[0].(map[string]any)["isDefault"], entries[1].(map[string]any)["isDefault"] = false, true
			for _, edit := range []struct {
				name string
				cp   chain.Object
			}{{"install", cp}, {"Step 3", switched}} {
				_, err := measureStep(w, edit.name, edit.cp)
				require.NoError(t, err)
				for _, after := range []time.Duration{0, 15 * time.Minute, 2 * time.Hour, 24 * time.Hour} {
					w.Now = w.Now.Add(after)
					w.ResyncAll()
					w.ResetStats()
					res, err := w.Run(w.controllers, 30)
					require.NoError(t, err)
					require.True(t, res.Converged)
					assert.Equal(t, chain.Writes{}, w.Stats().Total(), "%s, resynced %s later: no write", edit.name, after)
					assert.Equal(t, 4, w.Stats().SyncCount(), "%s, resynced %s later: every parent synced once", edit.name, after)
				}
			}
		})
	}
}
