package chain

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
)

// callLog is a Cluster that holds objects in a map and logs each call
// ApplySync makes, as a driver of a real API server would see them.
type callLog struct {
	objects map[Ref]Object
	calls   []string
}

func (c *callLog) Observed(r Ref) (Object, bool, error) { o, ok := c.objects[r]; return o, ok, nil }
func (c *callLog) Create(o Object) error {
	c.calls = append(c.calls, "create "+RefOf(o).Name)
	return nil
}
func (c *callLog) Update(o Object) error {
	c.calls = append(c.calls, "update "+RefOf(o).Name)
	return nil
}
func (c *callLog) Delete(r Ref) error { c.calls = append(c.calls, "delete "+r.Name); return nil }
func (c *callLog) UpdateStatus(r Ref, status map[string]any) error {
	raw, _ := json.Marshal(status)
	c.calls = append(c.calls, "status "+r.Name+" "+string(raw))
	return nil
}

func TestApplySyncCalls(t *testing.T) {
	parent := Object{"apiVersion": "v1", "kind": "P", "metadata": map[string]any{"name": "p", "namespace": "ns", "uid": "u1", "generation": int64(3)}}
	cm := func(name, v string) Object {
		return Object{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": name, "namespace": "ns",
			"labels": map[string]any{"controller-uid": "u1"}}, "data": map[string]any{"v": v}}
	}
	// stored is a child as the cluster holds it after an earlier apply of
	// the same answer.
	stored := func(name, v string) Object {
		o := cm(name, v)
		setLastApplied(o, cm(name, v))
		metadataOf(o)["ownerReferences"] = []any{map[string]any{"uid": "u1", "controller": true}}
		return o
	}
	key := metacontroller.Key("ConfigMap", "v1")
	cases := map[string]struct {
		reason   string
		existing []Object
		answer   []any
		want     []string
	}{
		"create": {"a new child is created, then the status with observedGeneration", nil, []any{cm("a", "1")},
			[]string{"create a", `status p {"observedGeneration":3}`}},
		"unchanged": {"an answer equal to the last applied one makes no child write; the cluster is asked for the status and compares",
			[]Object{stored("a", "1")}, []any{cm("a", "1")}, []string{`status p {"observedGeneration":3}`}},
		"changed": {"a changed answer updates", []Object{stored("a", "1")}, []any{cm("a", "2")},
			[]string{"update a", `status p {"observedGeneration":3}`}},
		"dropped": {"a child the answer stops returning is deleted before anything is written",
			[]Object{stored("a", "1"), stored("b", "1")}, []any{cm("b", "1"), cm("c", "1")},
			[]string{"delete a", "create c", `status p {"observedGeneration":3}`}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := &callLog{objects: map[Ref]Object{}}
			observed := metacontroller.ObjectMap{key: {}}
			for _, o := range tc.existing {
				c.objects[RefOf(o)] = o
				raw, _ := json.Marshal(o)
				observed[key][RefOf(o).Name] = raw
			}
			err := ApplySync(c, Controller{Name: "x"}, parent, observed, &metacontroller.SyncResponse{Children: tc.answer})
			if err != nil {
				t.Fatalf("%s: %v", tc.reason, err)
			}
			if d := cmp.Diff(tc.want, c.calls); d != "" {
				t.Errorf("%s (-want +got):\n%s", tc.reason, d)
			}
		})
	}
}
