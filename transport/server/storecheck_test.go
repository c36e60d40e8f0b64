package server

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/glancebackend"
)

// Only the GlanceBackend sync hook checks stores; the others are as they
// were, and the routes given are not changed in place.
func TestWithStoreChecksReplacesOnlyTheBackendSync(t *testing.T) {
	var checked []string
	check := func(endpoint string, _ time.Time) glancebackend.Reach {
		checked = append(checked, endpoint)
		return glancebackend.Reach{Detail: "connection refused"}
	}
	plain := RoutesWith("img")
	routes := WithStoreChecks(plain, check)
	if len(routes) != len(plain) {
		t.Fatalf("%d routes, want %d", len(routes), len(plain))
	}
	parent, _ := json.Marshal(map[string]any{"apiVersion": "glance.openstack.c5c3.io/v1alpha1", "kind": "GlanceBackend",
		"metadata": map[string]any{"name": "b", "namespace": "ns"},
		"spec":     map[string]any{"glanceRef": map[string]any{"name": "g"}, "s3": map[string]any{"host": "http://s3:9000"}}})
	for i, r := range routes {
		if r.Path != "/sync/glancebackend" {
			continue
		}
		resp, err := r.Sync(&metacontroller.SyncRequest{Parent: parent}, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		if len(checked) != 1 || checked[0] != "http://s3:9000" || resp.ResyncAfterSeconds == 0 {
			t.Errorf("the backend sync checks its endpoint and asks for a recheck: checked %v, resync %d", checked, resp.ResyncAfterSeconds)
		}
		if _, err := plain[i].Sync(&metacontroller.SyncRequest{Parent: parent}, time.Time{}); err != nil || len(checked) != 1 {
			t.Errorf("the routes given check nothing: checked %v, err %v", checked, err)
		}
	}
}
