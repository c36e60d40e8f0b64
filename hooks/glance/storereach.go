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
func storesReachable(in report.StatusInput) (hook.Condition, error) {
	c := hook.Condition{Type: model.CondStoresReachable, Status: true, Reason: model.ReasonStoresNotChecked,
		Message: "the service checks no store's S3 endpoint"}
	var checked int
	var down []string
	for _, s := range in.Observed.Stores {
		if s.Retired {
			continue
		}
		for _, rc := range s.Backend.Status.Conditions {
			if rc.Type != names.ConditionStoreReachable {
				continue
			}
			checked++
			if rc.Status != metav1.ConditionTrue {
				down = append(down, fmt.Sprintf("store %s (GlanceBackend %s): %s", s.ID, s.Backend.Name, rc.Message))
			}
		}
	}
	switch {
	case len(down) > 0:
		c.Status, c.Reason = false, model.ReasonStoreUnreachable
		c.Message = hook.Plural(len(down), "store does", "stores do") + " not answer, the config is kept as it is: " + strings.Join(down, "; ")
	case checked > 0:
		c.Reason, c.Message = model.ReasonAllStoresReachable, hook.Plural(checked, "store answers", "stores answer")
	}
	return c, nil
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
