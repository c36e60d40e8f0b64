package glance

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
)

// reachBackend is a related GlanceBackend reporting StoreReachable with
// status ("" reports none).
func reachBackend(t *testing.T, status, message string) json.RawMessage {
	var conds []map[string]string
	if status != "" {
		conds = append(conds, map[string]string{"type": names.ConditionStoreReachable, "status": status, "message": message})
	}
	raw, err := json.Marshal(map[string]any{"status": map[string]any{"conditions": conds}})
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// StoresReachable reads the backends' verdicts: which stores are down, or
// that all answer, or that none was checked; a retiring store, whose
// backend is gone, is not read.
func TestStoresReachable(t *testing.T) {
	cases := map[string]struct {
		reason  string
		a, b    string // StoreReachable of backends a and b
		retired bool   // b is a retiring store
		want    hook.Condition
	}{
		"no checks": {"a service without checks says so, True", "", "", false,
			hook.Condition{Type: CondStoresReachable, Status: true, Reason: ReasonStoresNotChecked, Message: "the service checks no store's S3 endpoint"}},
		"all answer": {"every checked store answers", "True", "True", false,
			hook.Condition{Type: CondStoresReachable, Status: true, Reason: ReasonAllStoresReachable, Message: "2 stores answer"}},
		"one is down": {"the store that is down is named with what its check met", "True", "False", false,
			hook.Condition{Type: CondStoresReachable, Reason: ReasonStoreUnreachable,
				Message: "1 store does not answer, the config is kept as it is: store b (GlanceBackend gb-b): connection refused"}},
		"both are down": {"each store that is down is named", "False", "False", false,
			hook.Condition{Type: CondStoresReachable, Reason: ReasonStoreUnreachable,
				Message: "2 stores do not answer, the config is kept as it is: store a (GlanceBackend gb-a): connection refused; store b (GlanceBackend gb-b): connection refused"}},
		"a retiring store": {"a store whose backend is gone is not read", "True", "False", true,
			hook.Condition{Type: CondStoresReachable, Status: true, Reason: ReasonAllStoresReachable, Message: "1 store answers"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			related := metacontroller.ObjectMap{names.GlanceBackendsKey: {
				"gb-a": reachBackend(t, tc.a, "connection refused"),
				"gb-b": reachBackend(t, tc.b, "connection refused"),
			}}
			stores := []*store{{id: "a", backend: api.GlanceBackend{}}, {id: "b", retired: tc.retired}}
			stores[0].backend.Name = "gb-a"
			stores[1].backend.Name = "gb-b"
			got, err := storesReachable(statusInput{o: &observed{stores: stores, related: related}})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}

// The Warning Event follows the condition: one while it is False, none
// while it is True.
func TestUnreachableOccurrences(t *testing.T) {
	st := api.GlanceStatus{}
	st.Conditions = hook.Conditions(nil, 1, t0, hook.Condition{Type: CondStoresReachable, Reason: ReasonStoreUnreachable, Message: "store b is down"})
	got := unreachableOccurrences(st)
	if len(got) != 1 || got[0].reason != EventStoreUnreachable || !got[0].warning || got[0].note != "store b is down" {
		t.Errorf("a False StoresReachable calls for one StoreUnreachable Warning, got %+v", got)
	}
	st.Conditions = hook.Conditions(nil, 1, t0, hook.Condition{Type: CondStoresReachable, Status: true, Reason: ReasonAllStoresReachable})
	if got := unreachableOccurrences(st); len(got) != 0 {
		t.Errorf("a True one calls for none, got %+v", got)
	}
}
