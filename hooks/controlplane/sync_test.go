package controlplane

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
)

func TestGlanceReady(t *testing.T) {
	glance := func(generation, observed int64, conds ...metav1.Condition) api.Glance {
		g := api.Glance{}
		g.Generation, g.Status.ObservedGeneration, g.Status.Conditions = generation, observed, conds
		return g
	}
	ready := func(status metav1.ConditionStatus) metav1.Condition {
		return metav1.Condition{Type: hook.ConditionReady, Status: status, Reason: "R", Message: "m"}
	}
	type args struct {
		glance api.Glance
		found  bool
	}
	waiting := func(msg string) hook.Condition {
		return hook.Condition{Type: CondGlanceReady, Reason: ReasonWaitingForGlance, Message: msg}
	}
	cases := map[string]struct {
		reason string
		args   args
		want   hook.Condition
	}{
		"Ready": {
			reason: "the projected Glance's Ready condition, for its current generation, is mirrored",
			args:   args{glance: glance(2, 2, ready(metav1.ConditionTrue)), found: true},
			want:   hook.Condition{Type: CondGlanceReady, Status: true, Reason: ReasonGlanceReady, Message: `Glance "cp-glance" is ready`},
		},
		"NotReady": {
			reason: "a Glance that is not ready passes on its reason and message",
			args:   args{glance: glance(2, 2, ready(metav1.ConditionFalse)), found: true},
			want:   hook.Condition{Type: CondGlanceReady, Reason: ReasonGlanceNotReady, Message: `Glance "cp-glance" is not ready: R: m`},
		},
		"Progressing": {
			reason: "a Glance on its way (the schema Job runs, then the rollout) gets one message for every step, so its steps do not rewrite the ControlPlane's status",
			args: args{glance: glance(2, 2, ready(metav1.ConditionFalse),
				metav1.Condition{Type: "DatabaseReady", Status: metav1.ConditionFalse, Reason: "SchemaSyncRunning"},
				metav1.Condition{Type: "DeploymentReady", Status: metav1.ConditionFalse, Reason: "RollingOut"}), found: true},
			want: hook.Condition{Type: CondGlanceReady, Reason: ReasonGlanceProgressing, Message: `Glance "cp-glance" is on its way: its schema, stores or rollout are in progress`},
		},
		"FaultWhileProgressing": {
			reason: "a fault beside the progress is passed on with the Glance's own words",
			args: args{glance: glance(2, 2, ready(metav1.ConditionFalse),
				metav1.Condition{Type: "BackendsReady", Status: metav1.ConditionFalse, Reason: "NoDefaultBackend"},
				metav1.Condition{Type: "DeploymentReady", Status: metav1.ConditionFalse, Reason: "RollingOut"}), found: true},
			want: hook.Condition{Type: CondGlanceReady, Reason: ReasonGlanceNotReady, Message: `Glance "cp-glance" is not ready: R: m`},
		},
		"NotCreated": {
			reason: "before Metacontroller creates the Glance there is nothing to mirror",
			want:   waiting(`Glance "cp-glance" has not been created yet`),
		},
		"StaleStatus": {
			reason: "a status written for an older spec says nothing about the current one",
			args:   args{glance: glance(3, 2, ready(metav1.ConditionTrue)), found: true},
			want:   waiting(`Glance "cp-glance" has not reported status for generation 3 yet`),
		},
		"NoReady": {
			reason: "a Glance whose hook has not answered yet",
			args:   args{glance: glance(1, 1), found: true},
			want:   waiting(`Glance "cp-glance" has no Ready condition yet`),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := glanceReady("cp", tc.args.glance, tc.args.found)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nglanceReady(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
