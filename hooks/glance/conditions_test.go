package glance

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
)

func TestProgressing(t *testing.T) {
	c := func(typ string, status metav1.ConditionStatus, reason string) metav1.Condition {
		return metav1.Condition{Type: typ, Status: status, Reason: reason}
	}
	notReady := c(hook.ConditionReady, metav1.ConditionFalse, hook.ReasonNotAllReady)
	cases := map[string]struct {
		reason string
		conds  []metav1.Condition
		want   bool
	}{
		"SchemaJobAndDeployment": {
			reason: "the first install: the schema Job runs, the Deployment is not there yet",
			conds: []metav1.Condition{notReady, c(model.CondBackendsReady, metav1.ConditionTrue, model.ReasonAllBackendsProjected),
				c(model.CondDatabaseReady, metav1.ConditionFalse, model.ReasonSchemaSyncRunning), c(model.CondDeploymentReady, metav1.ConditionFalse, model.ReasonDeploymentMissing)},
			want: true,
		},
		"RollingOut": {
			reason: "a rollout is progress",
			conds:  []metav1.Condition{notReady, c(model.CondDeploymentReady, metav1.ConditionFalse, model.ReasonRollingOut)},
			want:   true,
		},
		"FaultBesideProgress": {
			reason: "a fault anywhere makes it more than progress",
			conds: []metav1.Condition{notReady, c(model.CondDeploymentReady, metav1.ConditionFalse, model.ReasonRollingOut),
				c(model.CondBackendsReady, metav1.ConditionFalse, model.ReasonNoDefaultBackend)},
		},
		"PodsCrashLooping": {
			reason: "pods that do not start are a fault, not progress",
			conds:  []metav1.Condition{notReady, c(model.CondDeploymentReady, metav1.ConditionFalse, model.ReasonPodsCrashLooping)},
		},
		"OnlyReadyFalse": {
			reason: "nothing names progress: not progressing",
			conds:  []metav1.Condition{notReady},
		},
		"Ready": {
			reason: "a ready Glance is not on its way",
			conds:  []metav1.Condition{c(hook.ConditionReady, metav1.ConditionTrue, hook.ReasonAllReady)},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := Progressing(tc.conds); got != tc.want {
				t.Errorf("%s: Progressing = %v, want %v", tc.reason, got, tc.want)
			}
		})
	}
}
