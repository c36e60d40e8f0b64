package refexamples

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/simulate/chain"
	"github.com/c5c3/glance-hooks/simulate/render"
)

// suite is what one of the reference's suites waits for, on the set of
// CRs it applies (a directory under e2e/).
type suite struct {
	set   string
	from  string // the suite in the reference
	steps []step
}

// step is one step of a suite: what it changes, then what it waits for.
type step struct {
	from   string // the suite's step
	change func(*walk) error
	checks []check
}

// check is one value the suite waits for on one object. want is the
// suite's value; here, this project's where it documents another (why
// says where); skip, why the walk cannot decide it.
type check struct {
	kind, name string
	condition  string   // a condition's type: want is "status/reason" or "status"
	path       []string // else a field (see at)
	herePath   []string // where this project keeps it, if elsewhere
	mounted    string   // else a file of this Deployment volume: line is a pattern,
	file, line string   // want "present" or "absent"
	prefix     bool     // else whether an object named name... exists
	want, here string
	why, skip  string
	note       string // remember the value under this name for a later step
}

func (c check) what() string {
	switch {
	case c.condition != "":
		return "condition " + c.condition
	case c.mounted != "":
		return fmt.Sprintf("volume %s, %s, a line matching %s", c.mounted, c.file, c.line)
	case c.prefix:
		return "an object named " + c.name + "..."
	}
	return "field " + strings.Join(c.path, ".")
}

// reference is what the reference has where this project differs.
func (c check) reference() string {
	if c.here == "" {
		return ""
	}
	return fmt.Sprintf(" (the reference's suite waits for %s; %s)", c.want, c.why)
}

// cond is a Glance or GlanceBackend condition.
func cond(kind, name, typ, want string) check {
	return check{kind: kind, name: name, condition: typ, want: want}
}

func glanceCond(name, typ, want string) check { return cond(api.KindGlance, name, typ, want) }

func backendCond(name, typ, want string) check { return cond(api.KindGlanceBackend, name, typ, want) }

// field is a value at path (see at) of an object; none is its absence.
func field(kind, name, want string, path ...string) check {
	return check{kind: kind, name: name, path: path, want: want}
}

// podSpec is a field of a Deployment's pod template.
func podSpec(name, want string, path ...string) check {
	return field("Deployment", name, want, append([]string{"spec", "template", "spec"}, path...)...)
}

// confLine is whether a line of a file the Glance's Deployment mounts from
// volume (config or backends) matches pattern.
func confLine(glance, volume, file, pattern, want string) check {
	return check{kind: "Deployment", name: glance, mounted: volume, file: file, line: pattern, want: want}
}

// namedLike is whether an object of kind named prefix... exists.
func namedLike(kind, prefix, want string) check {
	return check{kind: kind, name: prefix, prefix: true, want: want}
}

// gone: the object does not exist.
func gone(kind, name string) check { return field(kind, name, none, "kind") }

// differs: this project reports here instead, and why says where that is
// documented.
func (c check) differs(here, why string) check {
	c.here, c.why = here, why
	return c
}

// differsAt: this project keeps the value at path instead.
func (c check) differsAt(here, why string, path ...string) check {
	c.here, c.why, c.herePath = here, why, path
	return c
}

// skipped: the walk cannot decide it, for why.
func (c check) skipped(why string) check {
	c.skip = why
	return c
}

// noted remembers the value read under name.
func (c check) noted(name string) check {
	c.note = name
	return c
}

// cluster is a check that only a cluster answers; what says what it is.
func cluster(what, why string) check { return check{kind: "-", name: what, skip: why} }

// patch merges a JSON merge patch into the set's object and applies the
// set again, as `kubectl patch --type=merge` and the hooks would.
func patch(kind, name, mergePatch string) func(*walk) error {
	return func(w *walk) error {
		var p map[string]any
		if err := json.Unmarshal([]byte(mergePatch), &p); err != nil {
			return err
		}
		for i, d := range w.docs {
			if d.Object["kind"] == kind && str(d.Object, "metadata", "name") == name {
				w.docs[i].Object = mergeObject(d.Object, p)
				return w.st.Update(w.docs, render.Options{})
			}
		}
		return fmt.Errorf("no %s %s in the set", kind, name)
	}
}

// remove deletes the set's object (and what it owns) as `kubectl delete`
// and the garbage collector would.
func remove(kind, name string) func(*walk) error {
	return func(w *walk) error {
		var kept []render.Doc
		for _, d := range w.docs {
			if d.Object["kind"] != kind || str(d.Object, "metadata", "name") != name {
				kept = append(kept, d)
			}
		}
		if len(kept) == len(w.docs) {
			return fmt.Errorf("no %s %s in the set", kind, name)
		}
		w.docs = kept
		return w.st.Update(w.docs, render.Options{})
	}
}

// acceptRoute is a Gateway controller accepting the Glance's HTTPRoute on
// its first parent, as the httproute suite's status patch does.
func acceptRoute(name string) func(*walk) error {
	return func(w *walk) error {
		route, ok := w.object("HTTPRoute", name)
		if !ok {
			return fmt.Errorf("no HTTPRoute %s", name)
		}
		parent := at(route, []string{"spec", "parentRefs", "[0]"})
		status := map[string]any{"parents": []any{map[string]any{
			"parentRef": parent, "controllerName": "example.com/gateway",
			"conditions": []any{map[string]any{"type": "Accepted", "status": "True", "reason": "Accepted",
				"message": "", "lastTransitionTime": "2026-01-01T00:00:00Z", "observedGeneration": 1}}}}}
		found, err := w.st.SetStatus(chain.RefOf(route), status, render.Options{})
		if !found {
			return fmt.Errorf("HTTPRoute %s is gone", name)
		}
		return err
	}
}

// mergeObject is a JSON merge patch (RFC 7386) applied to o.
func mergeObject(o, p map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range o {
		out[k] = v
	}
	for k, v := range p {
		sub, isMap := v.(map[string]any)
		cur, curMap := out[k].(map[string]any)
		switch {
		case v == nil:
			delete(out, k)
		case isMap && curMap:
			out[k] = mergeObject(cur, sub)
		default:
			out[k] = v
		}
	}
	return out
}
