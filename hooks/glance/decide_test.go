package glance

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/glance/decide"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
	"github.com/c5c3/glance-hooks/hooks/glance/observe"
	"github.com/c5c3/glance-hooks/hooks/glance/storestate"
)

func TestWhyKeep(t *testing.T) {
	complete := observe.CredentialsRead{Creds: &observe.Credentials{}}
	noPassword := observe.CredentialsRead{}
	noDatabase := observe.CredentialsRead{DBProblem: &hook.Condition{Type: model.CondDatabaseReady}}
	open := []hook.Condition{{Type: "A", Status: true, Message: "a is open"}}
	closed := []hook.Condition{{Type: "A", Status: true}, {Type: "B", Message: "b is closed"}, {Type: "C", Message: "c is closed"}}
	cases := map[string]struct {
		reason     string
		hold       bool
		hasDefault bool
		gates      []hook.Condition
		creds      observe.CredentialsRead
		want       decide.LastGood
	}{
		"Render":     {"a default and complete credentials render", false, true, open, complete, decide.LastGood{}},
		"Hold":       {"the first render waiting goes before everything", true, false, closed, noDatabase, decide.LastGood{Reason: model.ReasonNotRendered, Why: "the attached GlanceBackends are rendering their stores"}},
		"NoDefault":  {"no default store keeps the last-good config, saying why", false, false, closed, noDatabase, decide.LastGood{Reason: model.ReasonNoDefaultBackend, Why: "none"}},
		"GateClosed": {"the first closed gate says why, before the credentials it may explain", false, true, closed, noDatabase, decide.LastGood{Reason: model.ReasonLastGoodKept, Why: "b is closed"}},
		"NoDatabase": {"incomplete database credentials are named first", false, true, open, noDatabase, decide.LastGood{Reason: model.ReasonLastGoodKept, Why: "the database credentials are not complete"}},
		"NoPassword": {"else the missing service password", false, true, nil, noPassword, decide.LastGood{Reason: model.ReasonLastGoodKept, Why: "the service user's password is missing"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := decide.WhyKeep(tc.hold, tc.hasDefault, "none", tc.gates, tc.creds)
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(decide.LastGood{})); diff != "" {
				t.Errorf("%s\nwhyKeep: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestDecide(t *testing.T) {
	now := time.Unix(1000, 0)
	ready := func() []*model.Store { return []*model.Store{attached("a", true, "")} }
	pending := func() []*model.Store {
		s := attached("a", true, observe.PendingMessage)
		s.State, s.Since = storestate.Pending, now.Add(-time.Second)
		return []*model.Store{s}
	}
	glance := &api.Glance{}
	glance.Spec.OpenStackRelease = "2025.2"
	withCreds := observe.CredentialsRead{Creds: &observe.Credentials{}}
	cases := map[string]struct {
		reason   string
		observed observe.Observed
		wantKeep string
		wantHold bool
		wantDef  string
	}{
		"FirstRenderWaits": {
			reason:   "nothing rendered yet and a store on its way: the first render waits",
			observed: observe.Observed{Stores: pending(), Creds: withCreds},
			wantKeep: model.ReasonNotRendered, wantHold: true,
		},
		"RenderedBeforeNoWait": {
			reason:   "a config rendered before: no first-render wait, and no default keeps the last-good one",
			observed: observe.Observed{Stores: pending(), Creds: withCreds, HasConfig: true},
			wantKeep: model.ReasonNoDefaultBackend,
		},
		"Renders": {
			reason:   "a ready default store and credentials: render",
			observed: observe.Observed{Stores: ready(), Creds: withCreds, Deployment: &appsv1.Deployment{}},
			wantDef:  "a",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			o := tc.observed
			o.Glance, o.Spec, o.Now = glance, glance.Spec, now
			d := decide.Decide(&o, deciders())
			def := ""
			if d.Def != nil {
				def = d.Def.ID
			}
			got := []any{d.Keep.Reason, d.Hold, def}
			if diff := cmp.Diff([]any{tc.wantKeep, tc.wantHold, tc.wantDef}, got); diff != "" {
				t.Errorf("%s\ndecide: -want, +got (keep, hold, default):\n%s", tc.reason, diff)
			}
		})
	}
}

// TestDecideLeavesObservationAlone decides every recorded /sync/glance
// request and compares what observe returned with a second observation of
// the same request: decide moves its own copies of the stores (held, left
// out for a CA bundle, waiting for egress), never what was observed. The
// cases where decide did move a store are counted, so the test cannot pass
// by deciding nothing.
func TestDecideLeavesObservationAlone(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("..", "..", "test", "fixtures", "sync-glance", "*", "request.json"))
	if err != nil || len(dirs) < 10 {
		t.Fatalf("recorded requests: %d, %v", len(dirs), err)
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	all := cmp.Exporter(func(reflect.Type) bool { return true })
	moved := 0
	for _, path := range dirs {
		body, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		observeOnce := func() *observe.Observed {
			req, ok := metacontroller.ParseSyncRequest(body)
			if !ok {
				t.Fatalf("%s: not a sync request", path)
			}
			o, err := observeRequest(req, now)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			return o
		}
		o, fresh := observeOnce(), observeOnce()
		d := decide.Decide(o, deciders())
		if diff := cmp.Diff(fresh, o, all); diff != "" {
			t.Errorf("%s: decide changed the observation:\n%s", path, diff)
		}
		for i, s := range d.Stores {
			if s.State != o.Stores[i].State {
				moved++
				break
			}
		}
	}
	if moved == 0 {
		t.Error("no recorded request had decide move a store: the test proves nothing")
	}
}
