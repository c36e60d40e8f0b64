package chain

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// thing is a parent whose spec.data becomes one ConfigMap per key, and
// whose status says how many there are: enough to exercise every write.
type thing struct {
	Metadata struct {
		Name, Namespace string
	} `json:"metadata"`
	Spec struct {
		Data map[string]string `json:"data"`
		// ReadyAt, when set, holds every child back until that time and
		// asks for a resync then.
		ReadyAt *time.Time `json:"readyAt"`
	} `json:"spec"`
}

func thingController(syncs *int) Controller {
	return Controller{
		Name:     "thing",
		Parent:   Type{"example.com/v1", "Thing"},
		Children: []Type{{"v1", "ConfigMap"}},
		Sync: func(req *metacontroller.SyncRequest, now time.Time) (*metacontroller.SyncResponse, error) {
			*syncs++
			var p thing
			if err := json.Unmarshal(req.Parent, &p); err != nil {
				return nil, err
			}
			resp := &metacontroller.SyncResponse{Status: map[string]any{"children": len(p.Spec.Data)}, Children: []any{}}
			if p.Spec.ReadyAt != nil && now.Before(*p.Spec.ReadyAt) {
				resp.Status = map[string]any{"waiting": true}
				resp.ResyncAfterSeconds = int(p.Spec.ReadyAt.Sub(now) / time.Second)
				return resp, nil
			}
			for k, v := range p.Spec.Data {
				resp.Children = append(resp.Children, map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
					"metadata": map[string]any{"name": p.Metadata.Name + "-" + k, "namespace": p.Metadata.Namespace},
					"data":     map[string]any{"v": v}})
			}
			return resp, nil
		},
	}
}

func thingObject(data map[string]any) Object {
	return Object{"apiVersion": "example.com/v1", "kind": "Thing",
		"metadata": map[string]any{"name": "t", "namespace": "ns"}, "spec": map[string]any{"data": data}}
}

// The writes counted for each step are exactly the ones Metacontroller would
// make: nothing for an answer that changes nothing, one update per changed
// child, a status update only when the status changed.
func TestRunCountsWrites(t *testing.T) {
	type step struct {
		reason string
		data   map[string]any
		want   writesMap
	}
	steps := []step{
		{"first sync: two creates and a status update",
			map[string]any{"a": "1", "b": "1"},
			writesMap{}.with("ConfigMap", Writes{Create: 2}).with("Thing", Writes{Status: 1})},
		{"one child changed: one update; the other child and the status are unchanged",
			map[string]any{"a": "2", "b": "1"},
			writesMap{}.with("ConfigMap", Writes{Update: 1}).with("Thing", Writes{Status: 1})},
		{"a child dropped: one delete and the status",
			map[string]any{"a": "2"},
			writesMap{}.with("ConfigMap", Writes{Delete: 1}).with("Thing", Writes{Status: 1})},
	}
	syncs := 0
	w := NewWorld(t0)
	for _, s := range steps {
		w.ResetStats()
		if err := w.Apply(thingObject(s.data)); err != nil {
			t.Fatal(err)
		}
		res, err := w.Run([]Controller{thingController(&syncs)}, 10)
		if err != nil || !res.Converged {
			t.Fatalf("%s: Run: %v, %+v", s.reason, err, res)
		}
		if diff := cmp.Diff(map[string]Writes(s.want), w.Stats().Writes); diff != "" {
			t.Errorf("%s\nwrites: -want, +got:\n%s", s.reason, diff)
		}
		// The sync that wrote, then one that reads its own writes back
		// and changes nothing, as Metacontroller's watch would trigger.
		if got := w.Stats().Syncs["thing"]; got != 2 {
			t.Errorf("%s\n%d syncs, want 2", s.reason, got)
		}
	}
	w.ResetStats()
	if res, err := w.Run([]Controller{thingController(&syncs)}, 10); err != nil || !res.Converged || res.Rounds != 1 {
		t.Fatalf("Run of a converged world: %v, %+v", err, res)
	}
	if got := w.Stats(); got.SyncCount() != 0 || got.Total().Total() != 0 {
		t.Errorf("a converged world is not synced again: %+v", got)
	}
}

// A hook that waits until a time and asks for a resync then is synced
// again at that time, with nothing else happening: the clock jumps there.
func TestRunHonoursResyncAfter(t *testing.T) {
	syncs := 0
	w := NewWorld(t0)
	ready := t0.Add(30 * time.Second)
	o := thingObject(map[string]any{"a": "1"})
	o["spec"].(map[string]any)["readyAt"] = ready.Format(time.RFC3339)
	if err := w.Apply(o); err != nil {
		t.Fatal(err)
	}
	res, err := w.Run([]Controller{thingController(&syncs)}, 10)
	if err != nil || !res.Converged {
		t.Fatalf("Run: %v, %+v", err, res)
	}
	if w.Now.Before(ready) {
		t.Errorf("the clock stopped at %s, before the resync due at %s", w.Now, ready)
	}
	if _, ok := w.Get(Ref{APIVersion: "v1", Kind: "ConfigMap", Namespace: "ns", Name: "t-a"}); !ok {
		t.Errorf("the child held back until %s was not created at the resync", ready)
	}
	want := writesMap{}.with("ConfigMap", Writes{Create: 1}).with("Thing", Writes{Status: 2})
	if diff := cmp.Diff(map[string]Writes(want), w.Stats().Writes); diff != "" {
		t.Errorf("writes: -want, +got:\n%s", diff)
	}
}

// Metacontroller asks a customize hook again only for a new generation of
// the parent.
func TestRunCachesCustomizePerGeneration(t *testing.T) {
	syncs, customizes := 0, 0
	c := thingController(&syncs)
	c.Customize = func(*metacontroller.CustomizeRequest) (*metacontroller.CustomizeResponse, error) {
		customizes++
		return &metacontroller.CustomizeResponse{}, nil
	}
	w := NewWorld(t0)
	for _, data := range []map[string]any{{"a": "1"}, {"a": "2"}} {
		if err := w.Apply(thingObject(data)); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Run([]Controller{c}, 10); err != nil {
			t.Fatal(err)
		}
	}
	if customizes != 2 || w.Stats().Customizes["thing"] != 2 {
		t.Errorf("customize called %d times (counted %d), want once per generation (2); %d syncs", customizes, w.Stats().Customizes["thing"], syncs)
	}
}

// with is a small builder for the expected write maps above.
type writesMap map[string]Writes

func (m writesMap) with(kind string, w Writes) writesMap { m[kind] = w; return m }

// OnWrite sees each counted write with the object as it was before and
// after it, copies that later changes to the world leave as they were.
func TestOnWriteSeesBeforeAndAfter(t *testing.T) {
	syncs := 0
	w := NewWorld(t0)
	var seen []string
	var writes []Write
	w.OnWrite = func(wr Write) {
		seen = append(seen, wr.Verb+" "+wr.Ref.Kind+" "+wr.Ref.Name)
		writes = append(writes, wr)
	}
	for _, data := range []map[string]any{{"a": "1"}, {"a": "2"}, {}} {
		if err := w.Apply(thingObject(data)); err != nil {
			t.Fatal(err)
		}
		if res, err := w.Run([]Controller{thingController(&syncs)}, 10); err != nil || !res.Converged {
			t.Fatalf("Run: %v, %+v", err, res)
		}
	}
	// Each new generation is a status update too: observedGeneration.
	want := []string{"create ConfigMap t-a", "status Thing t", "update ConfigMap t-a", "status Thing t", "delete ConfigMap t-a", "status Thing t"}
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Fatalf("writes seen: -want, +got:\n%s", diff)
	}
	dataOf := func(o Object) any { return o["data"].(map[string]any)["v"] }
	if writes[0].Before != nil || dataOf(writes[0].After) != "1" {
		t.Errorf("create: before %v, after %v; want nothing, then v=1", writes[0].Before, writes[0].After)
	}
	if st := writes[1].After["status"].(map[string]any); writes[1].Before["status"] != nil || st["children"] != int64(1) {
		t.Errorf("first status: before %v, after %v; want none, then children=1", writes[1].Before["status"], st)
	}
	if dataOf(writes[2].Before) != "1" || dataOf(writes[2].After) != "2" {
		t.Errorf("update: v %v -> %v, want 1 -> 2", dataOf(writes[2].Before), dataOf(writes[2].After))
	}
	if writes[4].Before == nil || writes[4].After != nil {
		t.Errorf("delete: before %v, after %v; want the object, then nothing", writes[4].Before, writes[4].After)
	}
}
