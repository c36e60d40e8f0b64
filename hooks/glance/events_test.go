package glance

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
	"github.com/c5c3/glance-hooks/hooks/glance/report"
)

var (
	transition = time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	soon       = transition.Add(time.Minute)
	hoursLater = transition.Add(3 * time.Hour)
)

func cond(typ string, status bool, reason, message string) metav1.Condition {
	s := metav1.ConditionFalse
	if status {
		s = metav1.ConditionTrue
	}
	return metav1.Condition{Type: typ, Status: s, Reason: reason, Message: message, LastTransitionTime: metav1.NewTime(transition)}
}

func glanceWith(st api.GlanceStatus) *api.Glance {
	return &api.Glance{ObjectMeta: metav1.ObjectMeta{Name: "glance", Namespace: "openstack", UID: types.UID("uid-1")}, Status: st}
}

// summary is what a reader of an Event sees: type, reason, note.
func summary(t *testing.T, children []any) []string {
	t.Helper()
	var out []string
	for _, c := range children {
		raw, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		var e struct{ Type, Reason, Note string }
		if err := json.Unmarshal(raw, &e); err != nil {
			t.Fatal(err)
		}
		out = append(out, e.Type+" "+e.Reason+": "+e.Note)
	}
	return out
}

var upgrading = &api.UpgradeStatus{TargetRelease: "2026.1", TargetImage: "ghcr.io/c5c3/glance:2026.1"}

func phase(p string) *api.UpgradeStatus { u := *upgrading; u.Phase = p; return &u }

// ended is the status once an upgrade from 2025.2 to 2026.1 ended at the
// time given, DatabaseReady True since transition.
func ended(result string, at time.Time) api.GlanceStatus {
	installed := "2026.1"
	if result == api.UpgradeAborted {
		installed = "2025.2"
	}
	return api.GlanceStatus{InstalledRelease: installed,
		LastUpgrade: &api.UpgradeEnd{Result: result, FromRelease: "2025.2", ToRelease: "2026.1", EndedAt: metav1.NewTime(at)},
		Conditions:  []metav1.Condition{cond(model.CondDatabaseReady, true, model.ReasonDatabaseSynced, "the schema of "+installed+" is in place")}}
}

func TestEvents(t *testing.T) {
	skipped := api.GlanceStatus{
		Conditions: []metav1.Condition{cond(model.CondBackendsReady, false, model.ReasonWaitingForBackends, "2 backends are not projected")},
		Backends: []api.BackendStatus{
			{Name: "glance-archive", StoreID: "archive", Reason: model.ReasonBackendSkipped, Message: `credentials Secret "archive-s3" not found`},
			{Name: "glance-ca", StoreID: "ca", Reason: model.ReasonCABundleConflict, Message: "its CA bundle differs from the default's"},
			{Name: "glance-new", StoreID: "new", Reason: model.ReasonStorePending, Message: "its store Secret is on its way"},
			{Name: "glance-default", StoreID: "default", Projected: true},
		},
	}
	cases := map[string]struct {
		reason string
		status api.GlanceStatus
		now    time.Time
		want   []string
	}{
		"SkippedBackends": {
			reason: "each skipped backend is a Warning naming it and its cause; a store on its way is no fault",
			status: skipped, now: hoursLater,
			want: []string{
				`Warning GlanceBackendSkipped: backend "glance-ca" (store ca) is skipped (CABundleConflict): its CA bundle differs from the default's`,
				`Warning GlanceBackendSkipped: backend "glance-archive" (store archive) is skipped: credentials Secret "archive-s3" not found`,
			},
		},
		"BackendsReady": {
			reason: "a backend listed with a stale reason makes no Event once BackendsReady is True",
			status: api.GlanceStatus{Conditions: []metav1.Condition{cond(model.CondBackendsReady, true, model.ReasonAllBackendsProjected, "")},
				Backends: skipped.Backends},
			now: soon,
		},
		"DatabaseSyncedFresh": {
			reason: "the schema synced is a Normal Event right after the transition",
			status: api.GlanceStatus{InstalledRelease: "2025.2",
				Conditions: []metav1.Condition{cond(model.CondDatabaseReady, true, model.ReasonDatabaseSynced, "the schema of 2025.2 is in place")}},
			now:  soon,
			want: []string{"Normal DatabaseSynced: the schema of 2025.2 is in place"},
		},
		"DatabaseSyncedLongAgo": {
			reason: "a Normal Event not made within EventFreshFor is not made later (its TTL passed, or it never was)",
			status: api.GlanceStatus{InstalledRelease: "2025.2",
				Conditions: []metav1.Condition{cond(model.CondDatabaseReady, true, model.ReasonDatabaseSynced, "the schema of 2025.2 is in place")}},
			now: transition.Add(report.EventFreshFor + time.Second),
		},
		"UpgradeComplete": {
			reason: "the contract step's success is the upgrade's end, not a DatabaseSynced",
			status: ended(api.UpgradeComplete, transition), now: soon,
			want: []string{"Normal UpgradeComplete: Upgrade complete: 2025.2 → 2026.1"},
		},
		"UpgradeCompleteLongAgo": {
			reason: "an upgrade's end is a Normal Event: not made after EventFreshFor",
			status: ended(api.UpgradeComplete, transition), now: transition.Add(report.EventFreshFor + time.Second),
		},
		"UpgradeAborted": {
			reason: "going back to the installed release before contract is the upgrade's end, in the reference's words",
			status: ended(api.UpgradeAborted, transition), now: soon,
			want: []string{"Normal UpgradeAborted: Upgrade 2025.2 → 2026.1 aborted: spec release reverted to installed release 2025.2"},
		},
		"DatabaseSyncedAfterAnUpgrade": {
			reason: "a later transition (a patch bump's sync) is a DatabaseSynced: the upgrade ended with an earlier one",
			status: ended(api.UpgradeComplete, transition.Add(-time.Hour)), now: soon,
			want: []string{"Normal DatabaseSynced: the schema of 2026.1 is in place"},
		},
		"UnknownUpgradeEnd": {
			reason: "a result this hook does not write calls for no Event",
			status: ended("Paused", transition), now: soon,
		},
		"DBSyncFailed": {
			reason: "a failed schema sync is a Warning for as long as it fails",
			status: api.GlanceStatus{Conditions: []metav1.Condition{cond(model.CondDatabaseReady, false, model.ReasonDBSyncFailed, `Job "glance-db-sync-1" failed`)}},
			now:    hoursLater,
			want:   []string{`Warning DBSyncFailed: Job "glance-db-sync-1" failed`},
		},
		"SyncRunning": {
			reason: "no Event for a step in progress",
			status: api.GlanceStatus{Conditions: []metav1.Condition{cond(model.CondDatabaseReady, false, model.ReasonDBSyncInProgress, "running")}},
			now:    soon,
		},
		"UpgradeInitiated": {
			reason: "each upgrade phase reached is a Normal Event naming the step, not the Job running",
			status: api.GlanceStatus{InstalledRelease: "2025.2", Upgrade: phase(api.PhaseExpanding),
				Conditions: []metav1.Condition{cond(model.CondDatabaseReady, false, model.ReasonExpandInProgress, "Job x runs db expand")}},
			now:  soon,
			want: []string{"Normal UpgradeInitiated: Upgrade initiated: 2025.2 → 2026.1"},
		},
		"ExpandComplete": {
			status: api.GlanceStatus{InstalledRelease: "2025.2", Upgrade: phase(api.PhaseMigrating),
				Conditions: []metav1.Condition{cond(model.CondDatabaseReady, false, model.ReasonMigrateInProgress, "Job y runs db migrate")}},
			now:  soon,
			want: []string{"Normal ExpandComplete: Expand phase complete: 2025.2 → 2026.1"},
		},
		"MigrateComplete": {
			status: api.GlanceStatus{InstalledRelease: "2025.2", Upgrade: phase(api.PhaseRollingUpdate),
				Conditions: []metav1.Condition{cond(model.CondDatabaseReady, false, model.ReasonUpgradeRollingUpdate, "rolling")}},
			now:  soon,
			want: []string{"Normal MigrateComplete: Migrate phase complete: 2025.2 → 2026.1"},
		},
		"RolloutComplete": {
			status: api.GlanceStatus{InstalledRelease: "2025.2", Upgrade: phase(api.PhaseContracting),
				Conditions: []metav1.Condition{cond(model.CondDatabaseReady, false, model.ReasonContractInProgress, "Job z runs db contract")}},
			now:  soon,
			want: []string{"Normal DeploymentRolloutComplete: Deployment rollout complete during upgrade 2025.2 → 2026.1"},
		},
		"MigrateFailed": {
			reason: "a failed phase is a Warning named after the phase",
			status: api.GlanceStatus{InstalledRelease: "2025.2", Upgrade: phase(api.PhaseMigrating),
				Conditions: []metav1.Condition{cond(model.CondDatabaseReady, false, model.ReasonMigrateFailed, "Job y failed")}},
			now:  hoursLater,
			want: []string{"Warning MigrateFailed: Job y failed"},
		},
		"ContractFailed": {
			status: api.GlanceStatus{InstalledRelease: "2025.2", Upgrade: phase(api.PhaseContracting),
				Conditions: []metav1.Condition{cond(model.CondDatabaseReady, false, model.ReasonContractFailed, "Job z failed")}},
			now:  soon,
			want: []string{"Warning ContractFailed: Job z failed"},
		},
		"Downgrade": {
			status: api.GlanceStatus{Conditions: []metav1.Condition{cond(model.CondDatabaseReady, false, model.ReasonDowngradeNotSupported, "2025.1 is older")}},
			now:    soon,
			want:   []string{"Warning DowngradeNotSupported: 2025.1 is older"},
		},
		"SkipsReleases": {
			status: api.GlanceStatus{Conditions: []metav1.Condition{cond(model.CondDatabaseReady, false, model.ReasonUpgradePathInvalid, "one release at a time")}},
			now:    soon,
			want:   []string{"Warning UpgradePathInvalid: one release at a time"},
		},
		"TargetChanged": {
			status: api.GlanceStatus{Upgrade: phase(api.PhaseMigrating),
				Conditions: []metav1.Condition{cond(model.CondDatabaseReady, false, model.ReasonUpgradeTargetChanged, "set it back")}},
			now:  soon,
			want: []string{"Warning UpgradeTargetChanged: set it back"},
		},
		"NoConditions": {
			reason: "a Glance never synced has nothing to tell",
			now:    soon,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := events(glanceWith(tc.status), observeEvents(metacontroller.ObjectMap{}), tc.now)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, summary(t, got)); diff != "" {
				t.Errorf("%s\n-want +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// An abort writes the status twice with one transition: the sync that
// abandons the upgrade says so in DatabaseReady's message, the next one
// says the schema is in place. Both call for the one UpgradeAborted Event.
func TestUpgradeAbortedOnce(t *testing.T) {
	abandoned := ended(api.UpgradeAborted, transition)
	abandoned.Conditions[0].Message = "the upgrade to 2026.1 was abandoned in phase Migrating, before its contract step"
	var names []string
	for _, st := range []api.GlanceStatus{abandoned, ended(api.UpgradeAborted, transition)} {
		got, err := events(glanceWith(st), observeEvents(nil), soon)
		if err != nil || len(got) != 1 {
			t.Fatalf("got %d Events, %v", len(got), err)
		}
		names = append(names, got[0].(*report.EventChild).Name)
	}
	if names[0] != names[1] {
		t.Errorf("the message rewritten after an abort makes another Event: %v", names)
	}
}

// The whole Event, as the API server's events.k8s.io/v1 validation and
// kubectl describe need it.
func TestEventShape(t *testing.T) {
	got, err := events(glanceWith(api.GlanceStatus{
		Conditions: []metav1.Condition{cond(model.CondDatabaseReady, false, model.ReasonDBSyncFailed, "failed")}}), observeEvents(nil), soon)
	if err != nil || len(got) != 1 {
		t.Fatalf("got %d Events, %v", len(got), err)
	}
	raw, err := json.Marshal(got[0])
	if err != nil {
		t.Fatal(err)
	}
	var e map[string]any
	if err := json.Unmarshal(raw, &e); err != nil {
		t.Fatal(err)
	}
	meta := e["metadata"].(map[string]any)
	delete(e, "metadata")
	want := map[string]any{
		"apiVersion": "events.k8s.io/v1", "kind": "Event",
		"eventTime":           "2026-01-01T10:00:00.000000Z",
		"reportingController": "c5c3.io/glance-hooks", "reportingInstance": "glance-hooks",
		"action": "SyncSchema", "reason": "DBSyncFailed", "note": "failed", "type": "Warning",
		"regarding": map[string]any{"apiVersion": api.GlanceAPIVersion, "kind": "Glance", "namespace": "openstack", "name": "glance", "uid": "uid-1"},
	}
	if diff := cmp.Diff(want, e); diff != "" {
		t.Errorf("no deprecated field, the parent's uid (kubectl describe selects by it), eventTime in MicroTime form:\n%s", diff)
	}
	if name := meta["name"].(string); !strings.HasPrefix(name, "glance.") || len(name) != len("glance.")+16 {
		t.Errorf("name %q: the Glance's name and a digest", name)
	}
	if meta["namespace"] != "openstack" {
		t.Errorf("namespace %v", meta["namespace"])
	}
}

// An Event's name is a digest of what it says: the same status gives the
// same name whatever the clock; another transition, note or Glance another.
func TestEventNames(t *testing.T) {
	name := func(g *api.Glance, now time.Time) string {
		t.Helper()
		got, err := events(g, observeEvents(nil), now)
		if err != nil || len(got) != 1 {
			t.Fatalf("got %d Events, %v", len(got), err)
		}
		return got[0].(*report.EventChild).Name
	}
	st := api.GlanceStatus{Conditions: []metav1.Condition{cond(model.CondDatabaseReady, false, model.ReasonDBSyncFailed, "failed")}}
	base := name(glanceWith(st), soon)
	if again := name(glanceWith(st), hoursLater); again != base {
		t.Errorf("a resync later names the Event %s, not %s", again, base)
	}
	later := st
	later.Conditions = []metav1.Condition{cond(model.CondDatabaseReady, false, model.ReasonDBSyncFailed, "failed")}
	later.Conditions[0].LastTransitionTime = metav1.NewTime(transition.Add(time.Second))
	other := st
	other.Conditions = []metav1.Condition{cond(model.CondDatabaseReady, false, model.ReasonDBSyncFailed, "failed again")}
	recreated := glanceWith(st)
	recreated.UID = "uid-2"
	for what, n := range map[string]string{"transition": name(glanceWith(later), soon), "note": name(glanceWith(other), soon),
		"uid": name(recreated, soon)} {
		if n == base {
			t.Errorf("another %s, the same name %s", what, n)
		}
	}
}

// An observed Event the status no longer calls for (its fault cleared) is
// returned as last applied, so it stays until the API server's TTL deletes
// it; once gone it is not made again.
func TestEventsKeptUntilTheirTTL(t *testing.T) {
	faulted := api.GlanceStatus{Conditions: []metav1.Condition{cond(model.CondDatabaseReady, false, model.ReasonDBSyncFailed, "failed")}}
	made, err := events(glanceWith(faulted), observeEvents(nil), soon)
	if err != nil || len(made) != 1 {
		t.Fatalf("got %d Events, %v", len(made), err)
	}
	applied, err := json.Marshal(made[0])
	if err != nil {
		t.Fatal(err)
	}
	e := made[0].(*report.EventChild)
	observedRaw, err := json.Marshal(map[string]any{"apiVersion": e.APIVersion, "kind": "Event",
		"metadata": map[string]any{"name": e.Name, "namespace": e.Namespace, "uid": "server-uid", "resourceVersion": "7",
			"annotations": map[string]string{metacontroller.LastAppliedAnnotation: string(applied)}},
		"reason": e.Reason, "note": e.Note, "type": e.Type, "eventTime": e.EventTime})
	if err != nil {
		t.Fatal(err)
	}
	observed := metacontroller.ObjectMap{names.EventsKey: {e.Name: observedRaw}}
	healed := glanceWith(api.GlanceStatus{InstalledRelease: "2025.2",
		Conditions: []metav1.Condition{cond(model.CondDatabaseReady, true, model.ReasonDatabaseSynced, "in place")}})

	kept, err := events(healed, observeEvents(observed), hoursLater)
	if err != nil {
		t.Fatal(err)
	}
	if len(kept) != 1 {
		t.Fatalf("want the observed Event kept, got %s", summary(t, kept))
	}
	var got, want map[string]any
	raw, _ := json.Marshal(kept[0])
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(applied, &want); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("kept as last applied (-want +got):\n%s", diff)
	}
	gone, err := events(healed, observeEvents(metacontroller.ObjectMap{names.EventsKey: {}}), hoursLater)
	if err != nil {
		t.Fatal(err)
	}
	if len(gone) != 0 {
		t.Errorf("after its TTL nothing is made again, got %s", summary(t, gone))
	}

	bad := metacontroller.ObjectMap{names.EventsKey: {"glance.x": json.RawMessage(
		`{"metadata":{"name":"glance.x","annotations":{"` + metacontroller.LastAppliedAnnotation + `":"{not json"}}}`)}}
	if _, err := events(healed, observeEvents(bad), soon); !hook.IsInputError(err) {
		t.Errorf("a broken last-applied record is bad input, got %v", err)
	}
}

// A note is cut to what events.k8s.io/v1 accepts.
func TestEventNoteBounded(t *testing.T) {
	long := strings.Repeat("é", 2000)
	got, err := events(glanceWith(api.GlanceStatus{
		Conditions: []metav1.Condition{cond(model.CondDatabaseReady, false, model.ReasonDBSyncFailed, long)}}), observeEvents(nil), soon)
	if err != nil || len(got) != 1 {
		t.Fatalf("got %d Events, %v", len(got), err)
	}
	if n := len(got[0].(*report.EventChild).Note); n > report.MaxEventNote {
		t.Errorf("note of %d bytes", n)
	}
}

// BenchmarkEvents is the Events' share of a Glance sync at its worst: every
// one of 100 backends skipped, each a Warning.
func BenchmarkEvents(b *testing.B) {
	st := api.GlanceStatus{InstalledRelease: "2025.2", Conditions: []metav1.Condition{
		cond(model.CondBackendsReady, false, model.ReasonWaitingForBackends, "100 backends are not projected"),
		cond(model.CondDatabaseReady, true, model.ReasonDatabaseSynced, "the schema of 2025.2 is in place")}}
	for i := range 100 {
		id := "store-" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + string(rune('a'+i/26))
		st.Backends = append(st.Backends, api.BackendStatus{Name: "glance-" + id, StoreID: id, Reason: model.ReasonBackendSkipped,
			Message: `its credentials are not ready: credentials Secret "` + id + `" not found`})
	}
	g := glanceWith(st)
	b.ReportAllocs()
	for b.Loop() {
		if got, err := events(g, observeEvents(nil), soon); err != nil || len(got) != 101 {
			b.Fatalf("%d Events, %v", len(got), err)
		}
	}
}

// TestEventsDocumented keeps docs/hooks.md's table of Events in step with
// the reasons the hook makes: each has a row, and each row names one.
func TestEventsDocumented(t *testing.T) {
	made := map[string]bool{}
	for _, r := range []string{report.EventBackendSkipped, report.EventDBSyncFailed, report.EventExpandFailed,
		report.EventMigrateFailed, report.EventContractFailed, report.EventDowngradeNotSupported, report.EventUpgradePathInvalid,
		report.EventUpgradeTargetChanged, EventDBPurgeJobFailed, model.EventStoreUnreachable, report.EventDatabaseSynced,
		report.EventUpgradeInitiated, report.EventExpandComplete, report.EventMigrateComplete, report.EventDeploymentRolloutComplete,
		report.EventUpgradeComplete, report.EventUpgradeAborted, report.EventExtraConfigOwnedKey} {
		made[r] = true
	}
	documented := map[string]bool{}
	for _, cells := range docRows(docTable(t, repoFile(t, "docs", "hooks.md"), "| Reason | Type | When | Troubleshooting |", "the Events")) {
		for _, reason := range strings.Split(cells[1], ",") {
			documented[strings.Trim(strings.TrimSpace(reason), "`")] = true
		}
	}
	if diff := cmp.Diff(made, documented); diff != "" {
		t.Errorf("docs/hooks.md, Events: -made by the hook, +in the table:\n%s", diff)
	}
}
