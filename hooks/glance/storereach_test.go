package glance

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
	"github.com/c5c3/glance-hooks/hooks/glance/observe"
	"github.com/c5c3/glance-hooks/hooks/glance/report"
)

// reachBackend is an attached GlanceBackend reporting StoreReachable with
// status ("" reports none; "NotChecked" is True under StoreNotChecked).
func reachBackend(name, status, message string) api.GlanceBackend {
	var b api.GlanceBackend
	b.Name = name
	switch status {
	case "":
	case "NotChecked":
		b.Status.Conditions = []metav1.Condition{{Type: names.ConditionStoreReachable, Status: metav1.ConditionTrue,
			Reason: names.ReasonStoreNotChecked, Message: "not checked"}}
	default:
		b.Status.Conditions = []metav1.Condition{{Type: names.ConditionStoreReachable, Status: metav1.ConditionStatus(status), Message: message}}
	}
	return b
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
			hook.Condition{Type: model.CondStoresReachable, Status: true, Reason: model.ReasonStoresNotChecked, Message: "the service checks no store's S3 endpoint"}},
		"none checked": {"backends that say StoreNotChecked leave it at StoresNotChecked, True", "NotChecked", "NotChecked", false,
			hook.Condition{Type: model.CondStoresReachable, Status: true, Reason: model.ReasonStoresNotChecked, Message: "the service checks no store's S3 endpoint"}},
		"one checked": {"a store not checked is not counted as answering, and the message says so", "True", "NotChecked", false,
			hook.Condition{Type: model.CondStoresReachable, Status: true, Reason: model.ReasonAllStoresReachable, Message: "1 store answers; 1 store is not checked"}},
		"one down, one not checked": {"a store not checked does not hide one that is down", "NotChecked", "False", false,
			hook.Condition{Type: model.CondStoresReachable, Reason: model.ReasonStoreUnreachable,
				Message: "1 store does not answer, the config is kept as it is: store b (GlanceBackend gb-b): connection refused; 1 store is not checked"}},
		"all answer": {"every checked store answers", "True", "True", false,
			hook.Condition{Type: model.CondStoresReachable, Status: true, Reason: model.ReasonAllStoresReachable, Message: "2 stores answer"}},
		"one is down": {"the store that is down is named with what its check met", "True", "False", false,
			hook.Condition{Type: model.CondStoresReachable, Reason: model.ReasonStoreUnreachable,
				Message: "1 store does not answer, the config is kept as it is: store b (GlanceBackend gb-b): connection refused"}},
		"both are down": {"each store that is down is named", "False", "False", false,
			hook.Condition{Type: model.CondStoresReachable, Reason: model.ReasonStoreUnreachable,
				Message: "2 stores do not answer, the config is kept as it is: store a (GlanceBackend gb-a): connection refused; store b (GlanceBackend gb-b): connection refused"}},
		"a retiring store": {"a store whose backend is gone is not read", "True", "False", true,
			hook.Condition{Type: model.CondStoresReachable, Status: true, Reason: model.ReasonAllStoresReachable, Message: "1 store answers"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			stores := []*model.Store{{ID: "a", Backend: reachBackend("gb-a", tc.a, "connection refused")},
				{ID: "b", Retired: tc.retired, Backend: reachBackend("gb-b", tc.b, "connection refused")}}
			got, err := storesReachable(report.StatusInput{Observed: &observe.Observed{Stores: stores}})
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
	st.Conditions = hook.Conditions(nil, 1, t0, hook.Condition{Type: model.CondStoresReachable, Reason: model.ReasonStoreUnreachable, Message: "store b is down"})
	got := unreachableOccurrences(st)
	if len(got) != 1 || got[0].Reason != model.EventStoreUnreachable || !got[0].Warning || got[0].Note != "store b is down" {
		t.Errorf("a False StoresReachable calls for one StoreUnreachable Warning, got %+v", got)
	}
	st.Conditions = hook.Conditions(nil, 1, t0, hook.Condition{Type: model.CondStoresReachable, Status: true, Reason: model.ReasonAllStoresReachable})
	if got := unreachableOccurrences(st); len(got) != 0 {
		t.Errorf("a True one calls for none, got %+v", got)
	}
}
