package glance

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
)

// storesReachable is the StoresReachable condition of the attached stores.
// A backend that says StoreNotChecked (the service checks nothing, or the
// backend names no endpoint) counts neither as up nor as down; with no
// store checked the condition says StoresNotChecked.
func storesReachable(in statusInput) (hook.Condition, error) {
	c := hook.Condition{Type: CondStoresReachable, Status: true, Reason: ReasonStoresNotChecked,
		Message: "the service checks no store's S3 endpoint"}
	var up, unchecked int
	var down []string
	for _, s := range in.o.stores {
		rc, ok := reachVerdict(s)
		switch {
		case !ok:
		case rc.Reason == names.ReasonStoreNotChecked:
			unchecked++
		case rc.Status == metav1.ConditionTrue:
			up++
		default:
			down = append(down, fmt.Sprintf("store %s (GlanceBackend %s): %s", s.id, s.backend.Name, rc.Message))
		}
	}
	switch {
	case len(down) > 0:
		c.Status, c.Reason = false, ReasonStoreUnreachable
		c.Message = hook.Plural(len(down), "store does", "stores do") + " not answer, the config is kept as it is: " + strings.Join(down, "; ")
	case up > 0:
		c.Reason, c.Message = ReasonAllStoresReachable, hook.Plural(up, "store answers", "stores answer")
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
func reachVerdict(s *store) (metav1.Condition, bool) {
	if s.retired {
		return metav1.Condition{}, false
	}
	return hook.FindCondition(s.backend.Status.Conditions, names.ConditionStoreReachable)
}

// unreachableOccurrences is a StoreUnreachable Warning while
// StoresReachable is False, its note naming each store that is down.
func unreachableOccurrences(st api.GlanceStatus) []occurrence {
	c, ok := hook.FindCondition(st.Conditions, CondStoresReachable)
	if !ok || c.Status != metav1.ConditionFalse {
		return nil
	}
	return []occurrence{{warning: true, reason: EventStoreUnreachable, action: "CheckStores", note: c.Message, at: c.LastTransitionTime}}
}
