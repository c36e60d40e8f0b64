package test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/glance"
	"github.com/c5c3/glance-hooks/simulate/chain"
)

// silentBackend are the service's controllers, except that the sync of the
// GlanceBackends whose name ends in suffix never reports anything: no
// status, no store Secret, as when its sync keeps failing.
func silentBackend(suffix string) []chain.Controller {
	cs := chain.Controllers()
	for i := range cs {
		if cs[i].Name != "glancebackend" {
			continue
		}
		sync := cs[i].Sync
		cs[i].Sync = func(req *metacontroller.SyncRequest, now time.Time) (*metacontroller.SyncResponse, error) {
			var p struct {
				Metadata struct{ Name string } `json:"metadata"`
			}
			if err := json.Unmarshal(req.Parent, &p); err != nil {
				return nil, err
			}
			if strings.HasSuffix(p.Metadata.Name, suffix) {
				return &metacontroller.SyncResponse{Status: map[string]any{}, Children: []any{}}, nil
			}
			return sync(req, now)
		}
	}
	return cs
}

// The first render's wait is bounded: a backend that never reports holds
// the guide's install for glance.FirstRenderWait from its creation, not
// longer (the Glance asks for a resync then; nothing in the hook keeps
// time), and the healthy store is rendered then, the silent one left out
// as on its way.
func TestFirstRenderWaitIsBounded(t *testing.T) {
	s := newScenario(t)
	s.apply(credentials)
	s.apply(controlPlane(entry("default", "glance-images", true) + entry("secondary", "glance-images-2", false)))
	res, err := s.w.Run(silentBackend("-secondary"), 60)
	require.NoError(t, err)
	require.True(t, res.Converged, "did not converge in %d rounds", res.Rounds)

	d := s.get("Deployment", "controlplane-glance")
	created, err := time.Parse(time.RFC3339, d["metadata"].(map[string]any)["creationTimestamp"].(string))
	require.NoError(t, err)
	// The backends are created in the first round (FixtureNow); the schema
	// Job takes a round or two after the render.
	assert.False(t, created.Before(FixtureNow.Add(glance.FirstRenderWait)), "the install waited for the store on its way (Deployment made at %s)", created)
	assert.True(t, created.Before(FixtureNow.Add(glance.FirstRenderWait+5*time.Second)), "and no longer than FirstRenderWait (Deployment made at %s)", created)

	cfg, _ := mounts(d)
	assert.Contains(t, configText(t, s.get("ConfigMap", cfg)), "enabled_backends = default:s3\n", "the healthy store is rendered")
	assert.Equal(t, "False/WaitingForBackends", s.condition("Glance", "controlplane-glance", "BackendsReady"))
	st, _ := json.Marshal(s.get("Glance", "controlplane-glance")["status"].(map[string]any)["backends"])
	assert.Contains(t, string(st), `"reason":"`+glance.ReasonStorePending+`"`, "the silent backend is on its way, not a fault")
}
