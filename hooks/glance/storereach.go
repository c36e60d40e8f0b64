package glance

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
	"github.com/c5c3/glance-hooks/hooks/glance/report"
)

// storesReachable is the StoresReachable condition of the attached stores.
// A backend that says StoreNotChecked (the service checks nothing, or the
// backend names no endpoint) counts neither as up nor as down; with no
// store checked the condition says StoresNotChecked.
func storesReachable(in report.StatusInput) (hook.Condition, error) {
	c := hook.Condition{Type: model.CondStoresReachable, Status: true, Reason: model.ReasonStoresNotChecked,
		Message: "the service checks no store's S3 endpoint"}
	var up, unchecked int
	var down []string
	for _, s := range in.Observed.Stores {
		rc, ok := reachVerdict(s)
		switch {
		case !ok:
		case rc.Reason == names.ReasonStoreNotChecked:
			unchecked++
		case rc.Status == metav1.ConditionTrue:
			up++
		default:
			down = append(down, fmt.Sprintf("store %s (GlanceBackend %s): %s", s.ID, s.Backend.Name, rc.Message))
		}
	}
	switch {
	case len(down) > 0:
		c.Status, c.Reason = false, model.ReasonStoreUnreachable
		c.Message = hook.Plural(len(down), "store does", "stores do") + " not answer, the config is kept as it is: " + strings.Join(down, "; ")
	case up > 0:
		c.Reason, c.Message = model.ReasonAllStoresReachable, hook.Plural(up, "store answers", "stores answer")
	default:
		return c, nil
	}
	if unchecked > 0 {
		c.Message += "; " + hook.Plural(unchecked, "store is", "stores are") + " not checked"
	}
	return c, nil
}

// reachVerdict is the StoreReachable condition a store's backend
// reports; none for a retiring store, whose backend is gone.
func reachVerdict(s *model.Store) (metav1.Condition, bool) {
	if s.Retired {
		return metav1.Condition{}, false
	}
	return hook.FindCondition(s.Backend.Status.Conditions, names.ConditionStoreReachable)
}

// unreachableOccurrences is a StoreUnreachable Warning while
// StoresReachable is False, its note naming each store that is down.
func unreachableOccurrences(st api.GlanceStatus) []report.Occurrence {
	c, ok := hook.FindCondition(st.Conditions, model.CondStoresReachable)
	if !ok || c.Status != metav1.ConditionFalse {
		return nil
	}
	return []report.Occurrence{{Warning: true, Reason: model.EventStoreUnreachable, Action: "CheckStores", Note: c.Message, At: c.LastTransitionTime}}
}
