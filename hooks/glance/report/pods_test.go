package report

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
	"github.com/c5c3/glance-hooks/hooks/glance/observe"
)

func TestSchemaJobPodsAreThoseOfTheJob(t *testing.T) {
	yes := true
	pod := func(name, kind, owner string) json.RawMessage {
		p := corev1.Pod{}
		p.Name = name
		p.OwnerReferences = []metav1.OwnerReference{{Kind: kind, Name: owner, Controller: &yes}}
		raw, err := json.Marshal(p)
		require.NoError(t, err)
		return raw
	}
	related := metacontroller.ObjectMap{names.PodsKey: {
		"glance-db-sync-1-b":   pod("glance-db-sync-1-b", "Job", "glance-db-sync-1"),
		"glance-db-sync-1-a":   pod("glance-db-sync-1-a", "Job", "glance-db-sync-1"),
		"glance-db-sync-0-a":   pod("glance-db-sync-0-a", "Job", "glance-db-sync-0"),
		"glance-db-sync-1-x-y": pod("glance-db-sync-1-x-y", "ReplicaSet", "glance-db-sync-1-x"),
	}}
	observed, err := observe.ReadPods(related, "glance")
	require.NoError(t, err)
	pods := observed.ByJob["glance-db-sync-1"]
	var got []string
	for _, p := range pods {
		got = append(got, p.Name)
	}
	assert.Equal(t, []string{"glance-db-sync-1-a", "glance-db-sync-1-b"}, got, "the current step's Job's pods, not an earlier Job's, not a ReplicaSet's")
}

func TestExplainSchemaJob(t *testing.T) {
	failed := PodsVerdict{Reason: model.ReasonPodsFailed, Message: `2 of 2 pods failed: pod "j-a" init container "db-sync" exited with code 1 (Error)`}
	pulling := PodsVerdict{Reason: model.ReasonPodsNotStarting, Message: `1 of 1 pod cannot start: ...`}
	cond := func(status bool, reason, message string) hook.Condition {
		return hook.Condition{Type: model.CondDatabaseReady, Status: status, Reason: reason, Message: message}
	}
	cases := map[string]struct {
		reason string
		cond   hook.Condition
		pods   PodsVerdict
		want   hook.Condition
	}{
		"SyncRunning": {
			reason: "a running Job whose pods fail: their reason, the Job's message first",
			cond:   cond(false, model.ReasonDBSyncInProgress, "Job j syncs the first schema"),
			pods:   failed,
			want:   cond(false, model.ReasonPodsFailed, "Job j syncs the first schema; "+failed.Message),
		},
		"Upgrading": {
			reason: "the same during an upgrade step",
			cond:   cond(false, model.ReasonExpandInProgress, "upgrading, phase Expanding: Job j runs db expand"),
			pods:   pulling,
			want:   cond(false, model.ReasonPodsNotStarting, "upgrading, phase Expanding: Job j runs db expand; "+pulling.Message),
		},
		"SyncFailed": {
			reason: "a failed Job stays DBSyncFailed; its pods say how they ended",
			cond:   cond(false, model.ReasonDBSyncFailed, "Job j failed: read its logs"),
			pods:   failed,
			want:   cond(false, model.ReasonDBSyncFailed, "Job j failed: read its logs; "+failed.Message),
		},
		"UpgradeFailed": {
			reason: "the same for an upgrade step",
			cond:   cond(false, model.ReasonMigrateFailed, "m"),
			pods:   failed,
			want:   cond(false, model.ReasonMigrateFailed, "m; "+failed.Message),
		},
		"Synced": {
			reason: "a Job that succeeded: pods that failed before its last try do not matter",
			cond:   cond(true, model.ReasonDatabaseSynced, "m"),
			pods:   failed,
			want:   cond(true, model.ReasonDatabaseSynced, "m"),
		},
		"NothingToSay": {
			reason: "pods still starting within their deadline: the Job's own reason",
			cond:   cond(false, model.ReasonDBSyncInProgress, "m"),
			pods:   PodsVerdict{Recheck: time.Minute},
			want:   cond(false, model.ReasonDBSyncInProgress, "m"),
		},
		"Refused": {
			reason: "a refusal is about the spec, not about pods",
			cond:   cond(false, model.ReasonDowngradeNotSupported, "m"),
			pods:   failed,
			want:   cond(false, model.ReasonDowngradeNotSupported, "m"),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, tc.want, ExplainSchemaJob(tc.cond, tc.pods), tc.reason)
		})
	}
}

func TestResyncAfterTheSoonestDeadline(t *testing.T) {
	assert.Equal(t, 0, ResyncAfter())
	assert.Equal(t, 0, ResyncAfter(PodsVerdict{}, PodsVerdict{}))
	assert.Equal(t, 30, ResyncAfter(PodsVerdict{Recheck: time.Minute}, PodsVerdict{}, PodsVerdict{Recheck: 29*time.Second + time.Millisecond}))
}
