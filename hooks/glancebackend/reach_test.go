package glancebackend

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
)

// The hook reports StoreReachable on every sync, StoreNotChecked when it
// checks nothing, and asks for a resync only while the store does not
// answer, to see it back.
func TestReachability(t *testing.T) {
	down := func(string, time.Time) Reach { return Reach{Detail: "dial tcp: connection refused"} }
	up := func(string, time.Time) Reach { return Reach{Reachable: true, Detail: "HTTP 403"} }
	withHost := &api.GlanceBackend{Spec: api.GlanceBackendSpec{S3: &api.S3Store{Host: "http://s3:8080"}}}
	cases := map[string]struct {
		reason     string
		hook       Hook
		backend    *api.GlanceBackend
		wantReason string
		wantResync int
	}{
		"no check":       {"a service that checks nothing says so", Hook{}, withHost, ReasonStoreNotChecked, 0},
		"no S3 block":    {"nothing to check without an endpoint", Hook{Check: down}, &api.GlanceBackend{}, ReasonStoreNotChecked, 0},
		"no host":        {"nor with an empty one", Hook{Check: down}, &api.GlanceBackend{Spec: api.GlanceBackendSpec{S3: &api.S3Store{}}}, ReasonStoreNotChecked, 0},
		"answers":        {"True, and no resync: the periodic resync finds an outage", Hook{Check: up}, withHost, ReasonStoreReachable, 0},
		"does not":       {"False, and a recheck within the default half minute", Hook{Check: down}, withHost, ReasonStoreUnreachable, 30},
		"own recheck":    {"the service's recheck is honoured", Hook{Check: down, Recheck: 5 * time.Second}, withHost, ReasonStoreUnreachable, 5},
		"sub-second too": {"a recheck under a second still is at least a second", Hook{Check: down, Recheck: time.Millisecond}, withHost, ReasonStoreUnreachable, 1},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c, resync := tc.hook.reachability(tc.backend, time.Time{})
			if diff := cmp.Diff([]any{tc.wantReason, tc.wantResync}, []any{c.Reason, resync}); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}

// A store that does not answer holds the backend's Ready, and the message
// names the endpoint and the fault.
func TestUnreachableStoreHoldsReady(t *testing.T) {
	c := reachCondition("http://s3:8080", Reach{Detail: "dial tcp: connection refused"})
	ready := hook.Ready("ok", c)
	if ready.Status || ready.Message != "waiting for StoreReachable (StoreUnreachable)" {
		t.Errorf("Ready: %+v", ready)
	}
	for _, want := range []string{"http://s3:8080", "connection refused"} {
		if !strings.Contains(c.Message, want) {
			t.Errorf("the message %q does not name %q", c.Message, want)
		}
	}
}

// A store that is not checked holds nothing: the condition is True, so
// Ready does not wait for it, and its message names the flag that turns
// the check on.
func TestNotCheckedStoreHoldsNothing(t *testing.T) {
	withHost := &api.GlanceBackend{Spec: api.GlanceBackendSpec{S3: &api.S3Store{Host: "http://s3:8080"}}}
	c, resync := Hook{}.reachability(withHost, time.Time{})
	if ready := hook.Ready("ok", c); !ready.Status {
		t.Errorf("Ready waits for a store nobody checked: %+v", ready)
	}
	if resync != 0 {
		t.Errorf("a store nobody checked asks for a resync every %d s", resync)
	}
	if !strings.Contains(c.Message, "--store-check-timeout") {
		t.Errorf("the message %q does not say how to turn the check on", c.Message)
	}
}
