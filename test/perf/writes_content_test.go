package perf

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/simulate/chain"
)

// syncOrder is an order the chain can sync in, each an interleaving a real
// cluster may show.
type syncOrder struct {
	name string
	set  func(*chain.World)
	// siblingsApart: a Glance syncs between the creates of one ControlPlane
	// sync, so on install it sees one backend rendered before its sibling
	// exists (chain.World.ReactBetweenWrites says why a real cluster does
	// not show that) and renders that one store first.
	siblingsApart bool
}

var syncOrders = []syncOrder{
	{name: "ControllerByController", set: func(w *chain.World) { w.ReactAtOnce = false }},
	{name: "ReactAtOnce", set: func(w *chain.World) { w.ReactAtOnce = true }},
	{name: "ReactBetweenWrites", set: func(w *chain.World) { w.ReactAtOnce, w.ReactBetweenWrites = true, true }, siblingsApart: true},
}

func loggedWalk(t *testing.T, order func(*chain.World)) []WriteStep {
	t.Helper()
	steps, err := guideWalk(chain.Controllers(), Now, walkOptions{log: true, order: order})
	require.NoError(t, err)
	return steps
}

// The guide's first install writes the Deployment once, whatever order the
// syncs come in: one ReplicaSet, the pods rolled out once. The config it
// mounts is made once too, and nothing made on the way is deleted again,
// unless the Glance sees one backend before its sibling even exists (then
// the schema Job still holds the Deployment until both stores are there).
func TestFirstInstallRollsOutOnce(t *testing.T) {
	for _, order := range syncOrders {
		t.Run(order.name, func(t *testing.T) {
			install := loggedWalk(t, order.set)[0]
			require.Equal(t, "install", install.Name)
			assert.Equal(t, chain.Writes{Create: 1}, install.Stats.Writes["Deployment"], "one Deployment write")
			assert.Equal(t, chain.Writes{Create: 1}, install.Stats.Writes["Job"], "one schema Job")
			if order.siblingsApart {
				return
			}
			assert.Equal(t, chain.Writes{Create: 1}, install.Stats.Writes["ConfigMap"], "one config ConfigMap")
			assert.Zero(t, install.Stats.Total().Delete, "nothing made on the way is deleted again")
		})
	}
}

// No write of the walk leaves what a reader sees as it was: an update
// changes more than the last-applied record Metacontroller keeps, a status
// update more than condition times, and a condition's lastTransitionTime
// moves only when its status does.
func TestEveryWriteChangesSomething(t *testing.T) {
	for _, order := range syncOrders {
		t.Run(order.name, func(t *testing.T) {
			for _, step := range loggedWalk(t, order.set) {
				for i, wr := range step.Log {
					where := fmt.Sprintf("%s, write %d: %s of %s", step.Name, i+1, wr.Verb, wr.Ref)
					switch wr.Verb {
					case chain.VerbUpdate:
						assert.False(t, reflect.DeepEqual(readable(wr.Before), readable(wr.After)),
							"%s changes nothing but the last-applied record", where)
					case chain.VerbStatus:
						before, after := statusOf(wr.Before), statusOf(wr.After)
						assert.False(t, reflect.DeepEqual(withoutTimes(before), withoutTimes(after)),
							"%s changes nothing but condition times", where)
						assertTransitionTimesKept(t, where, before, after)
					}
				}
			}
		})
	}
}

// While the stores arrive and the Deployment rolls out, no condition of any
// parent comes back to what it said earlier in the step after saying
// something else (A, B, A): each write says something new. (A step may end
// where it began: Step 3's Ready goes False while the pods roll and True
// again with the message it had.) A Glance that sees one backend before its
// sibling exists on install says it waits for backends once the sibling
// appears: not checked there.
func TestNoFlipFlopWhileStoresArrive(t *testing.T) {
	for _, order := range syncOrders {
		t.Run(order.name, func(t *testing.T) {
			for _, step := range loggedWalk(t, order.set) {
				if order.siblingsApart && step.Name == "install" {
					continue
				}
				type key struct {
					ref  chain.Ref
					cond string
				}
				said := map[key][]string{}
				for _, wr := range step.Log {
					if wr.Verb != chain.VerbStatus {
						continue
					}
					if _, ok := said[key{wr.Ref, ""}]; !ok {
						for c, v := range conditionsOf(statusOf(wr.Before)) {
							said[key{wr.Ref, c}] = []string{v}
						}
						said[key{wr.Ref, ""}] = nil
					}
					for c, v := range conditionsOf(statusOf(wr.After)) {
						k := key{wr.Ref, c}
						seq := said[k]
						if len(seq) > 0 && seq[len(seq)-1] == v {
							continue
						}
						for i, earlier := range seq {
							if earlier == v && i > 0 {
								t.Errorf("%s: %s %s says again %q after %q", step.Name, wr.Ref, c, v, seq[len(seq)-1])
							}
						}
						said[k] = append(seq, v)
					}
				}
			}
		})
	}
}

// readable is an object as a reader sees it: without the server's
// bookkeeping and the last-applied record Metacontroller keeps.
func readable(o chain.Object) chain.Object {
	c := maps.Clone(o)
	meta, _ := o["metadata"].(map[string]any)
	meta = maps.Clone(meta)
	delete(meta, "resourceVersion")
	delete(meta, "generation")
	if ann, _ := meta["annotations"].(map[string]any); ann != nil {
		ann = maps.Clone(ann)
		delete(ann, metacontroller.LastAppliedAnnotation)
		meta["annotations"] = ann
	}
	c["metadata"] = meta
	return c
}

func statusOf(o chain.Object) map[string]any {
	st, _ := o["status"].(map[string]any)
	return st
}

// withoutTimes is a status with every condition's lastTransitionTime
// dropped.
func withoutTimes(st map[string]any) map[string]any {
	raw, _ := json.Marshal(st)
	var c map[string]any
	_ = json.Unmarshal(raw, &c)
	conds, _ := c["conditions"].([]any)
	for _, x := range conds {
		delete(x.(map[string]any), "lastTransitionTime")
	}
	return c
}

// conditionsOf maps each condition type to "status/reason: message", and
// each entry of a Glance's status.backends[] ("backend <name>") to
// "reason: message".
func conditionsOf(st map[string]any) map[string]string {
	out := map[string]string{}
	conds, _ := st["conditions"].([]any)
	for _, x := range conds {
		m := x.(map[string]any)
		out[fmt.Sprint(m["type"])] = fmt.Sprintf("%v/%v: %v", m["status"], m["reason"], m["message"])
	}
	backends, _ := st["backends"].([]any)
	for _, x := range backends {
		m := x.(map[string]any)
		out[fmt.Sprint("backend ", m["name"])] = fmt.Sprintf("%v: %v", m["reason"], m["message"])
	}
	return out
}

func assertTransitionTimesKept(t *testing.T, where string, before, after map[string]any) {
	t.Helper()
	type cond struct{ status, at any }
	was := map[any]cond{}
	conds, _ := before["conditions"].([]any)
	for _, x := range conds {
		m := x.(map[string]any)
		was[m["type"]] = cond{m["status"], m["lastTransitionTime"]}
	}
	conds, _ = after["conditions"].([]any)
	for _, x := range conds {
		m := x.(map[string]any)
		if c, ok := was[m["type"]]; ok && c.status == m["status"] {
			assert.Equal(t, c.at, m["lastTransitionTime"], "%s: %v keeps its lastTransitionTime while its status stays %v", where, m["type"], m["status"])
		}
	}
}
