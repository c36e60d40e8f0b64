package chain

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
)

// teller is a parent whose spec.note becomes one Event child, its note
// carried as given: a changed note changes the desired Event in place.
func tellerController() Controller {
	event := Type{"events.k8s.io/v1", "Event"}
	return Controller{
		Name:     "teller",
		Parent:   Type{"example.com/v1", "Teller"},
		Children: []Type{event},
		OnDelete: []Type{event},
		Sync: func(req *metacontroller.SyncRequest, _ time.Time) (*metacontroller.SyncResponse, error) {
			var p struct {
				Spec struct{ Note string } `json:"spec"`
			}
			if err := json.Unmarshal(req.Parent, &p); err != nil {
				return nil, err
			}
			return &metacontroller.SyncResponse{Status: map[string]any{}, Children: []any{map[string]any{
				"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": map[string]any{"name": "t.1"},
				"note": p.Spec.Note}}}, nil
		},
	}
}

func teller(note string) Object {
	return Object{"apiVersion": "example.com/v1", "kind": "Teller",
		"metadata": map[string]any{"name": "t", "namespace": "ns"}, "spec": map[string]any{"note": note}}
}

// Metacontroller's rules for an OnDelete child, and the API server's for
// Events: created once and never updated; gone at the TTL and created again
// while still returned; left alone when its owner is deleted.
func TestEventChildren(t *testing.T) {
	w := NewWorld(t0)
	c := []Controller{tellerController()}
	ev := Ref{APIVersion: "events.k8s.io/v1", Kind: "Event", Namespace: "ns", Name: "t.1"}
	note := func() any {
		o, ok := w.Get(ev)
		if !ok {
			return nil
		}
		return o["note"]
	}
	run := func() {
		t.Helper()
		if res, err := w.Run(c, 10); err != nil || !res.Converged {
			t.Fatalf("run: %+v %v", res, err)
		}
	}
	if err := w.Apply(teller("first")); err != nil {
		t.Fatal(err)
	}
	run()
	if note() != "first" {
		t.Fatalf("created with the note returned: %v", note())
	}
	w.ResetStats()
	if err := w.Apply(teller("second")); err != nil {
		t.Fatal(err)
	}
	run()
	if note() != "first" || w.Stats().Writes["Event"].Total() != 0 {
		t.Errorf("OnDelete: never updated, got note %v and writes %+v", note(), w.Stats().Writes["Event"])
	}
	w.Now = w.Now.Add(w.EventTTL)
	run()
	if note() != "second" || w.Stats().Writes["Event"].Create != 1 {
		t.Errorf("at its TTL the Event goes; returned still, it is created anew: note %v, writes %+v", note(), w.Stats().Writes["Event"])
	}
	w.Delete(Ref{APIVersion: "example.com/v1", Kind: "Teller", Namespace: "ns", Name: "t"})
	if _, ok := w.Get(ev); !ok {
		t.Error("the garbage collector ignores Events: deleting the owner leaves it")
	}
}
