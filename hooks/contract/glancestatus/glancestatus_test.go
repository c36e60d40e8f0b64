package glancestatus

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/hook"
)

// The cases spell the Glance's other conditions and reasons as its status
// does: this package sits below the hook that defines them.
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
			conds: []metav1.Condition{notReady, c("BackendsReady", metav1.ConditionTrue, "AllBackendsProjected"),
				c("DatabaseReady", metav1.ConditionFalse, ReasonDBSyncInProgress), c("DeploymentReady", metav1.ConditionFalse, ReasonDeploymentMissing)},
			want: true,
		},
		"WaitingForDeployment": {
			reason: "a rollout is progress",
			conds:  []metav1.Condition{notReady, c("DeploymentReady", metav1.ConditionFalse, ReasonWaitingForDeployment)},
			want:   true,
		},
		"FaultBesideProgress": {
			reason: "a fault anywhere makes it more than progress",
			conds: []metav1.Condition{notReady, c("DeploymentReady", metav1.ConditionFalse, ReasonWaitingForDeployment),
				c("BackendsReady", metav1.ConditionFalse, "NoDefaultBackend")},
		},
		"WrittenBeforeTheRename": {
			reason: "a status an earlier release wrote, before the Glance syncs again, is read in its new words",
			conds: []metav1.Condition{notReady, c("DatabaseReady", metav1.ConditionFalse, "SchemaSyncRunning"),
				c("DeploymentReady", metav1.ConditionFalse, "RollingOut")},
			want: true,
		},
		"UpgradeStepWrittenBeforeTheRename": {
			reason: "an earlier release wrote one reason for every step of an upgrade",
			conds:  []metav1.Condition{notReady, c("DatabaseReady", metav1.ConditionFalse, "SchemaUpgrading")},
			want:   true,
		},
		"PodsCrashLooping": {
			reason: "pods that do not start are a fault, not progress",
			conds:  []metav1.Condition{notReady, c("DeploymentReady", metav1.ConditionFalse, "PodsCrashLooping")},
		},
		"ExtraConfigOverride": {
			reason: "an override the operator chose does not turn a Glance on its way into one at fault",
			conds: []metav1.Condition{notReady, c("DeploymentReady", metav1.ConditionFalse, ReasonWaitingForDeployment),
				c(CondExtraConfigHealthy, metav1.ConditionFalse, "OwnedKeysOverridden")},
			want: true,
		},
		"PurgeFailed": {
			reason: "a purge that failed is reported beside Ready, not on the way to it",
			conds: []metav1.Condition{notReady, c("DatabaseReady", metav1.ConditionFalse, ReasonDBSyncInProgress),
				c(CondDBPurgeReady, metav1.ConditionFalse, "DBPurgeJobFailed")},
			want: true,
		},
		"StoreDown": {
			reason: "a store that does not answer is reported beside Ready",
			conds: []metav1.Condition{notReady, c("DeploymentReady", metav1.ConditionFalse, ReasonWaitingForDeployment),
				c(CondStoresReachable, metav1.ConditionFalse, "StoreUnreachable")},
			want: true,
		},
		"OnlyBesideFalse": {
			reason: "what Ready does not wait for is no way there either",
			conds:  []metav1.Condition{notReady, c(CondDBPurgeReady, metav1.ConditionFalse, "DBPurgeJobFailed")},
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

// TestCurrentReason: the reasons renamed to the reference's words map to
// their new names; every other reason is its own.
func TestCurrentReason(t *testing.T) {
	for old, now := range map[string]string{
		"SchemaSynced": "DatabaseSynced", "SchemaSyncRunning": "DBSyncInProgress", "SchemaSyncFailed": "DBSyncFailed",
		"DeploymentAvailable": "DeploymentReady", "RollingOut": "WaitingForDeployment",
		"DatabaseSynced": "DatabaseSynced", "PodsCrashLooping": "PodsCrashLooping", "": "",
	} {
		if got := CurrentReason(old); got != now {
			t.Errorf("CurrentReason(%q) = %q, want %q", old, got, now)
		}
	}
}
