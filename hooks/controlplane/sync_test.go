package controlplane

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
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
	onItsWay := hook.Condition{Type: CondGlanceReady, Reason: ReasonWaitingForGlance, Message: `Glance "cp-glance" is on its way: its schema, stores or rollout are in progress`}
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
				metav1.Condition{Type: "DatabaseReady", Status: metav1.ConditionFalse, Reason: "DBSyncInProgress"},
				metav1.Condition{Type: "DeploymentReady", Status: metav1.ConditionFalse, Reason: "WaitingForDeployment"}), found: true},
			want: onItsWay,
		},
		"FaultWhileProgressing": {
			reason: "a fault beside the progress is passed on with the Glance's own words",
			args: args{glance: glance(2, 2, ready(metav1.ConditionFalse),
				metav1.Condition{Type: "BackendsReady", Status: metav1.ConditionFalse, Reason: "NoDefaultBackend"},
				metav1.Condition{Type: "DeploymentReady", Status: metav1.ConditionFalse, Reason: "WaitingForDeployment"}), found: true},
			want: hook.Condition{Type: CondGlanceReady, Reason: ReasonGlanceNotReady, Message: `Glance "cp-glance" is not ready: R: m`},
		},
		"NotCreated": {
			reason: "the answer that asks for the Glance already says what every step until it is Ready says, so creating it costs no status write of its own",
			want:   onItsWay,
		},
		"StaleStatus": {
			reason: "a status written for an older spec says nothing about the current one: the Glance is on its way to it",
			args:   args{glance: glance(3, 2, ready(metav1.ConditionTrue)), found: true},
			want:   onItsWay,
		},
		"NoReady": {
			reason: "a Glance whose hook has not answered yet is on its way",
			args:   args{glance: glance(1, 1), found: true},
			want:   onItsWay,
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

// A Glance or GlanceBackend the answer creates puts the Glance on its way;
// once every projected child is observed, the Glance's own status decides.
func TestAllObserved(t *testing.T) {
	glance := &api.Glance{ObjectMeta: metav1.ObjectMeta{Name: "cp-glance"}}
	backend := func(name string) *api.GlanceBackend {
		return &api.GlanceBackend{ObjectMeta: metav1.ObjectMeta{Name: name}}
	}
	observed := metacontroller.ObjectMap{
		names.GlancesKey:        {"cp-glance": json.RawMessage(`{}`)},
		names.GlanceBackendsKey: {"cp-glance-default": json.RawMessage(`{}`)},
	}
	cases := map[string]struct {
		reason   string
		children []any
		want     bool
	}{
		"all there":   {"every projected child is observed", []any{glance, backend("cp-glance-default")}, true},
		"new backend": {"Step 2: the answer creates a GlanceBackend", []any{glance, backend("cp-glance-default"), backend("cp-glance-secondary")}, false},
		"new glance":  {"install: the answer creates the Glance", []any{&api.Glance{ObjectMeta: metav1.ObjectMeta{Name: "other"}}}, false},
		"kept":        {"children kept as last applied (a refused spec) are not typed and say nothing", []any{map[string]any{"kind": "GlanceBackend"}}, true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := allObserved(tc.children, observed); got != tc.want {
				t.Errorf("%s: allObserved = %v, want %v", tc.reason, got, tc.want)
			}
		})
	}
}

// TestSyncRefusesWhatAdmissionRefuses: the sync hook holds the
// reference's publicEndpoint rule on its own, as admission does: nothing is
// projected, and GlanceProjected says why in the same words.
func TestSyncRefusesWhatAdmissionRefuses(t *testing.T) {
	body := `{"parent":{"apiVersion":"c5c3.io/v1alpha1","kind":"ControlPlane","metadata":{"name":"cp","namespace":"openstack","generation":1},` +
		`"spec":{"services":{"glance":{"publicEndpoint":"https://glance.example.com/image","backends":[{"name":"default","type":"S3","isDefault":true,` +
		`"s3":{"endpoint":"http://s3:3900","bucket":"b","credentialsSecretRef":{"name":"c"}}}]}}}},"children":{},"related":{}}`
	resp := syncBody(t, body)
	for _, child := range resp.Children {
		switch child.(type) {
		case *api.Glance, *api.GlanceBackend:
			t.Errorf("%T projected from a refused ControlPlane", child)
		}
	}
	c, _ := hook.FindCondition(resp.Status.(api.ControlPlaneStatus).Conditions, CondGlanceProjected)
	if string(c.Status) != "False" || !strings.Contains(c.Message, "spec.services.glance.publicEndpoint: must be a bare origin (scheme://host[:port])") {
		t.Errorf("GlanceProjected = %+v, want False naming the publicEndpoint rule", c)
	}
}

// syncBody is the ControlPlane sync's answer to a request body.
func syncBody(t *testing.T, body string) *metacontroller.SyncResponse {
	t.Helper()
	req, ok := metacontroller.ParseSyncRequest([]byte(body))
	if !ok {
		t.Fatal("the request does not parse")
	}
	resp, err := Hook{}.Sync(req, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	return resp
}
