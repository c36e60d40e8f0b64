package render

import (
	"fmt"
	"io"
	"reflect"
	"regexp"
	"strings"
	"text/tabwriter"

	"sigs.k8s.io/yaml"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/simulate/chain"
)

// Actions of a Change.
const (
	Created   = "created"
	Changed   = "changed"
	Deleted   = "deleted"
	Unchanged = "unchanged"
)

// Change is what happens to one object between two renders.
type Change struct {
	Ref    chain.Ref
	Action string
	// Replaces is set on a created content-hashed object (a
	// <glance>-config-<hash> ConfigMap, a <glance>-backends-<hash> Secret)
	// that takes over from a deleted one of the same owner and prefix.
	Replaces string
	// Diff is a unified diff of the object without its status (for a
	// replacement, of the object it replaces), Secret values redacted.
	Diff string
}

// Rollout says whether a Glance's pods roll.
type Rollout struct {
	Glance  chain.Ref
	Rolls   bool
	Verdict string
}

// ConditionChange is a parent condition whose status, reason or message
// differs.
type ConditionChange struct {
	Ref           chain.Ref
	Type          string
	Before, After Condition // Status "" when the condition is absent
}

// Difference is what applying the second input to a cluster at the first
// would change.
type Difference struct {
	Changes    []Change
	Rollouts   []Rollout
	Conditions []ConditionChange
}

// Different reports whether any object is created, changed or deleted.
func (d *Difference) Different() bool {
	for _, c := range d.Changes {
		if c.Action != Unchanged {
			return true
		}
	}
	return false
}

// Compare tells two sets of objects apart. Objects are compared as printed
// without status and server-set fields, and with Secret values in the clear;
// diffs show Secret values redacted unless opts.ShowSecrets, marking a value
// that changed without changing its length.
func Compare(before, after []chain.Object, opts OutputOptions) *Difference {
	opts.KeepServerFields = false
	b, a := indexByRef(before), indexByRef(after)
	refs := map[chain.Ref]bool{}
	for r := range b {
		refs[r] = true
	}
	for r := range a {
		refs[r] = true
	}
	d := &Difference{}
	for _, r := range chain.SortedRefs(refs) {
		ob, inB := b[r]
		oa, inA := a[r]
		c := Change{Ref: r}
		switch {
		case !inB:
			c.Action = Created
		case !inA:
			c.Action = Deleted
		default:
			pb, pa := specOf(ob), specOf(oa)
			if reflect.DeepEqual(pb, pa) {
				c.Action = Unchanged
			} else {
				c.Action = Changed
				c.Diff = objectDiff(r, r, pb, pa, opts)
			}
			d.Conditions = append(d.Conditions, conditionChanges(r, ob, oa)...)
		}
		d.Changes = append(d.Changes, c)
	}
	pairReplacements(d, b, a, opts)
	d.Rollouts = rollouts(b, a)
	return d
}

func indexByRef(objs []chain.Object) map[chain.Ref]chain.Object {
	m := map[chain.Ref]chain.Object{}
	for _, o := range objs {
		m[chain.RefOf(o)] = o
	}
	return m
}

// specOf is the object as the cluster is asked to store it: no status, no
// server-set fields, Secret values in the clear.
func specOf(o chain.Object) chain.Object {
	c := Clean(o, OutputOptions{ShowSecrets: true})
	delete(c, "status")
	return c
}

func objectDiff(from, to chain.Ref, b, a chain.Object, opts OutputOptions) string {
	if !opts.ShowSecrets && isSecret(b) && isSecret(a) {
		b, a = redactPair(b, a)
	}
	yb, _ := yaml.Marshal(b)
	ya, _ := yaml.Marshal(a)
	return unifiedDiff(refString(from)+" (before)", refString(to)+" (after)", string(yb), string(ya))
}

// redactPair redacts two versions of a Secret; a value that changed but
// keeps its length is marked, so the diff still shows it.
func redactPair(b, a chain.Object) (chain.Object, chain.Object) {
	rb, ra := Clean(b, OutputOptions{KeepServerFields: true}), Clean(a, OutputOptions{KeepServerFields: true})
	for _, field := range []string{"data", "stringData"} {
		db, _ := b[field].(map[string]any)
		da, _ := a[field].(map[string]any)
		xb, _ := rb[field].(map[string]any)
		xa, _ := ra[field].(map[string]any)
		for k, va := range da {
			if vb, ok := db[k]; ok && vb != va && xb[k] == xa[k] {
				xa[k] = fmt.Sprintf("%s (changed)", xa[k])
			}
		}
	}
	return rb, ra
}

// hashSuffix is the -<hash> contenthash puts on names.
var hashSuffix = regexp.MustCompile(`-[0-9a-f]{10}$`)

// pairReplacements links each created content-hashed object to the one it
// replaces: same kind, namespace, owner and name prefix, exactly one of each.
func pairReplacements(d *Difference, b, a map[chain.Ref]chain.Object, opts OutputOptions) {
	type group struct{ created, deleted []int }
	groups := map[string]*group{}
	var order []string
	for i, c := range d.Changes {
		if (c.Action != Created && c.Action != Deleted) || !hashSuffix.MatchString(c.Ref.Name) {
			continue
		}
		o := a[c.Ref]
		if c.Action == Deleted {
			o = b[c.Ref]
		}
		key := strings.Join([]string{c.Ref.APIVersion, c.Ref.Kind, c.Ref.Namespace,
			hashSuffix.ReplaceAllString(c.Ref.Name, ""), controllerName(o)}, "\x00")
		g := groups[key]
		if g == nil {
			g = &group{}
			groups[key] = g
			order = append(order, key)
		}
		if c.Action == Created {
			g.created = append(g.created, i)
		} else {
			g.deleted = append(g.deleted, i)
		}
	}
	for _, key := range order {
		g := groups[key]
		if len(g.created) != 1 || len(g.deleted) != 1 {
			continue
		}
		nc, od := &d.Changes[g.created[0]], d.Changes[g.deleted[0]]
		nc.Replaces = od.Ref.Name
		nc.Diff = objectDiff(od.Ref, nc.Ref, specOf(b[od.Ref]), specOf(a[nc.Ref]), opts)
	}
}

// controllerName is "<Kind>/<name>" of an object's controller, or "".
func controllerName(o chain.Object) string {
	meta, _ := o["metadata"].(map[string]any)
	refs, _ := meta["ownerReferences"].([]any)
	for _, r := range refs {
		m, _ := r.(map[string]any)
		if c, _ := m["controller"].(bool); c {
			return fmt.Sprintf("%v/%v", m["kind"], m["name"])
		}
	}
	return ""
}

func conditionChanges(r chain.Ref, b, a chain.Object) []ConditionChange {
	if !isParent(a) {
		return nil
	}
	cb, ca := ConditionsOf(b), ConditionsOf(a)
	find := func(list []Condition, t string) Condition {
		for _, c := range list {
			if c.Type == t {
				return c
			}
		}
		return Condition{Type: t}
	}
	var out []ConditionChange
	seen := map[string]bool{}
	for _, c := range append(append([]Condition{}, ca...), cb...) {
		if seen[c.Type] {
			continue
		}
		seen[c.Type] = true
		before, after := find(cb, c.Type), find(ca, c.Type)
		if before != after {
			out = append(out, ConditionChange{Ref: r, Type: c.Type, Before: before, After: after})
		}
	}
	return out
}

// rollouts compares each Glance's Deployment pod template.
func rollouts(b, a map[chain.Ref]chain.Object) []Rollout {
	glances := map[chain.Ref]bool{}
	for _, m := range []map[chain.Ref]chain.Object{b, a} {
		for r := range m {
			if r.Kind == api.KindGlance && r.APIVersion == api.GlanceAPIVersion {
				glances[r] = true
			}
		}
	}
	var out []Rollout
	for _, g := range chain.SortedRefs(glances) {
		db, dbOK := deploymentOf(b, g)
		da, daOK := deploymentOf(a, g)
		ro := Rollout{Glance: g}
		_, glanceAfter := a[g]
		switch {
		case !glanceAfter:
			ro.Verdict = "pods stop: the Glance is deleted"
		case !dbOK && !daOK:
			ro.Verdict = "no pods: no Deployment before or after"
		case !dbOK:
			ro.Rolls, ro.Verdict = true, "pods start: the Deployment is created"
		case !daOK:
			ro.Verdict = "pods stop: the Deployment is deleted"
		default:
			tb, ta := template(db), template(da)
			if reflect.DeepEqual(tb, ta) {
				ro.Verdict = "pods do not roll: the pod template is unchanged"
			} else {
				ro.Rolls = true
				ro.Verdict = "pods roll: the pod template changed" + volumeChanges(tb, ta)
			}
		}
		out = append(out, ro)
	}
	return out
}

// deploymentOf is the Deployment a Glance controls.
func deploymentOf(m map[chain.Ref]chain.Object, g chain.Ref) (chain.Object, bool) {
	for _, r := range chain.SortedRefs(m) {
		if r.Kind == "Deployment" && r.Namespace == g.Namespace && controllerName(m[r]) == api.KindGlance+"/"+g.Name {
			return m[r], true
		}
	}
	return nil, false
}

func template(d chain.Object) any {
	spec, _ := d["spec"].(map[string]any)
	return spec["template"]
}

// volumeChanges names the mounted ConfigMaps and Secrets that changed, the
// usual reason a Glance rolls.
func volumeChanges(b, a any) string {
	vb, va := volumeSources(b), volumeSources(a)
	var parts []string
	for _, name := range sortedKeys(va) {
		if old, ok := vb[name]; ok && old != va[name] {
			parts = append(parts, fmt.Sprintf("volume %s: %s -> %s", name, old, va[name]))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

func volumeSources(t any) map[string]string {
	out := map[string]string{}
	tm, _ := t.(map[string]any)
	spec, _ := tm["spec"].(map[string]any)
	vols, _ := spec["volumes"].([]any)
	for _, v := range vols {
		m, _ := v.(map[string]any)
		name, _ := m["name"].(string)
		if cm, ok := m["configMap"].(map[string]any); ok {
			out[name], _ = cm["name"].(string)
		}
		if s, ok := m["secret"].(map[string]any); ok {
			out[name], _ = s["secretName"].(string)
		}
	}
	return out
}

// WriteDiff prints a Difference: one line per object, each Glance's rollout
// verdict, the conditions that change, then the unified diffs.
func WriteDiff(w io.Writer, d *Difference) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ACTION\tKIND\tNAME")
	for _, c := range d.Changes {
		note := ""
		if c.Replaces != "" {
			note = "  (replaces " + c.Replaces + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s/%s%s\n", c.Action, c.Ref.Kind, c.Ref.Namespace, c.Ref.Name, note)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(d.Rollouts) > 0 {
		fmt.Fprintln(w)
		for _, r := range d.Rollouts {
			fmt.Fprintf(w, "Glance %s/%s: %s\n", r.Glance.Namespace, r.Glance.Name, r.Verdict)
		}
	}
	if len(d.Conditions) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Conditions that change (with the new message):")
		tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, c := range d.Conditions {
			state := condState(c.After)
			if b := condState(c.Before); b != state {
				state = b + " -> " + state
			}
			fmt.Fprintf(tw, "  %s %s/%s\t%s\t%s\t%s\n", c.Ref.Kind, c.Ref.Namespace, c.Ref.Name, c.Type,
				state, oneLine(c.After.Message))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	for _, c := range d.Changes {
		if c.Diff != "" {
			fmt.Fprintln(w)
			fmt.Fprint(w, c.Diff)
		}
	}
	return nil
}

func condState(c Condition) string {
	if c.Status == "" {
		return "absent"
	}
	return c.Status + "/" + c.Reason
}
