package glance

import (
	"encoding/base64"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/contract/storeconf"
	"github.com/c5c3/glance-hooks/hooks/glance/decide"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
	"github.com/c5c3/glance-hooks/hooks/glance/observe"
	"github.com/c5c3/glance-hooks/hooks/glance/storestate"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Whether a store is skipped (a fault, named) or pending (on its way), and
// since when, is decided from the backend's status and its store Secret.
func TestEvaluatePendingOrSkipped(t *testing.T) {
	type want struct {
		pending  bool
		since    time.Time
		skipped  string
		rendered bool
	}
	credentials := func(status metav1.ConditionStatus, at time.Time, message string) []metav1.Condition {
		return []metav1.Condition{{Type: names.ConditionCredentialsReady, Status: status, LastTransitionTime: metav1.NewTime(at), Message: message}}
	}
	cases := map[string]struct {
		reason     string
		conditions []metav1.Condition
		secret     string // "" none, "current", "stale"
		want       want
	}{
		"NotReported": {
			reason: "a backend that has not reported is on its way since its creation, whatever it will say",
			want:   want{pending: true, since: t0, skipped: observe.PendingMessage},
		},
		"FaultReported": {
			reason:     "a backend that reports unusable credentials is skipped at once, naming the cause",
			conditions: credentials(metav1.ConditionFalse, t0.Add(time.Second), `credentials Secret "c" has no secret-access-key key`),
			want:       want{skipped: `its credentials are not ready: credentials Secret "c" has no secret-access-key key`},
		},
		"SecretNotThereYet": {
			reason:     "usable credentials and no store Secret yet: on its way since the credentials became usable",
			conditions: credentials(metav1.ConditionTrue, t0.Add(5*time.Second), "carries both keys"),
			want:       want{pending: true, since: t0.Add(5 * time.Second), skipped: observe.PendingMessage},
		},
		"SecretFromAnOlderSpec": {
			reason:     "a store Secret rendered from an older spec is on its way to the current one",
			conditions: credentials(metav1.ConditionTrue, t0.Add(5*time.Second), "carries both keys"),
			secret:     "stale",
			want:       want{pending: true, since: t0.Add(5 * time.Second), skipped: `its store Secret "a-store" was rendered from an older spec`},
		},
		"Rendered": {
			reason:     "usable credentials and the current store Secret: rendered",
			conditions: credentials(metav1.ConditionTrue, t0.Add(5*time.Second), "carries both keys"),
			secret:     "current",
			want:       want{rendered: true},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			g := &api.Glance{}
			g.Name, g.Namespace = "glance", "openstack"
			s := &model.Store{ID: "a"}
			s.Backend.Name, s.Backend.CreationTimestamp = "a", metav1.NewTime(t0)
			s.Backend.Spec = api.GlanceBackendSpec{GlanceRef: api.LocalObjectReference{Name: "glance"}, Type: api.BackendTypeS3,
				S3: &api.S3Store{Host: "http://s3:3900", S3Options: api.S3Options{Bucket: "b", CredentialsSecretRef: api.LocalObjectReference{Name: "c"}}}}
			s.Backend.Status.Conditions = tc.conditions
			related := metacontroller.ObjectMap{names.SecretsKey: {}}
			if tc.secret != "" {
				hash := storeconf.SpecHash(s.Backend.Spec, "a")
				if tc.secret == "stale" {
					hash = "older"
				}
				raw, err := json.Marshal(map[string]any{
					"metadata": map[string]any{
						"labels":          map[string]string{names.LabelGlance: "glance"},
						"annotations":     map[string]string{names.AnnotationStoreID: "a", names.AnnotationSpecHash: hash},
						"ownerReferences": []any{map[string]any{"kind": api.KindGlanceBackend, "name": "a", "controller": true}},
					},
					"data": map[string]string{names.StoreSecretKey: base64.StdEncoding.EncodeToString([]byte("[a]\ns3_store_bucket = b\n"))},
				})
				if err != nil {
					t.Fatal(err)
				}
				related[names.SecretsKey][names.StoreSecretName("a")] = raw
			}
			if err := observe.Evaluate(s, g, related); err != nil {
				t.Fatal(err)
			}
			got := want{pending: s.State.Waiting(), since: s.Since, skipped: s.Skipped, rendered: s.State.Rendered()}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nevaluate: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// The first render waits for stores on their way, each at most
// FirstRenderWait from when it started on its way, and for a Glance without
// backends FirstRenderWait from its creation; faulted or rendered stores
// hold nothing. It resyncs when the earliest wait ends.
func TestFirstRenderHold(t *testing.T) {
	pendingSince := func(name string, since time.Time) *model.Store {
		s := attached(name, false, observe.PendingMessage)
		s.State, s.Since = storestate.Pending, since
		return s
	}
	type want struct {
		hold  bool
		until time.Time
	}
	cases := map[string]struct {
		reason string
		stores []*model.Store
		now    time.Time
		want   want
	}{
		"NothingAttachedYet": {
			reason: "a Glance whose backends are not there yet waits from its creation",
			now:    t0.Add(3 * time.Second),
			want:   want{hold: true, until: t0.Add(decide.FirstRenderWait)},
		},
		"NothingAttachedInTheEnd": {
			reason: "and not longer",
			now:    t0.Add(decide.FirstRenderWait),
		},
		"OnTheirWay": {
			reason: "stores on their way hold it, the earliest deadline first",
			stores: []*model.Store{attached("a", true, ""), pendingSince("b", t0.Add(10*time.Second)), pendingSince("c", t0.Add(2*time.Second))},
			now:    t0.Add(12 * time.Second),
			want:   want{hold: true, until: t0.Add(2*time.Second + decide.FirstRenderWait)},
		},
		"OneWaitOver": {
			reason: "a store on its way for longer than FirstRenderWait holds nothing; one still within it does",
			stores: []*model.Store{attached("a", true, ""), pendingSince("b", t0.Add(10*time.Second)), pendingSince("c", t0)},
			now:    t0.Add(decide.FirstRenderWait + time.Second),
			want:   want{hold: true, until: t0.Add(10*time.Second + decide.FirstRenderWait)},
		},
		"FaultedDoesNotHold": {
			reason: "a faulted store is skipped at once",
			stores: []*model.Store{attached("a", true, ""), attached("b", false, "its credentials are not ready: bad")},
			now:    t0,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			g := &api.Glance{}
			g.CreationTimestamp = metav1.NewTime(t0)
			hold, until := decide.FirstRenderHold(g, tc.stores, tc.now)
			if diff := cmp.Diff(tc.want, want{hold, until}, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nfirstRenderHold: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestResyncSeconds(t *testing.T) {
	for _, tc := range []struct {
		after time.Duration
		want  int
	}{{30 * time.Second, 30}, {29*time.Second + 300*time.Millisecond, 30}, {100 * time.Millisecond, 1}, {0, 1}} {
		if got := decide.ResyncSeconds(t0, t0.Add(tc.after)); got != tc.want {
			t.Errorf("resyncSeconds(%s from now) = %d, want %d: whole seconds, rounded up, at least 1", tc.after, got, tc.want)
		}
	}
}
