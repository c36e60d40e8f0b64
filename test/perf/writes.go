package perf

import (
	"fmt"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/c5c3/glance-hooks/simulate/chain"
	"github.com/c5c3/glance-hooks/test/guide"
)

// WriteStep is one step of the guide's walk with what Metacontroller did
// for it, from the edit to converged, and every object after it.
type WriteStep struct {
	Name    string
	Stats   chain.Stats
	Objects []chain.Object
	// Log is every write of the step, in order, when the walk keeps it
	// (walkOptions.log).
	Log []chain.Write
}

// Requests is what the step cost Metacontroller's client: every write, and
// the read of the parent before each status comparison.
func (s WriteStep) Requests() int { return s.Stats.Total().Total() + s.Stats.SyncCount() }

// guideCredentials is the ESO-synced Secret the guide's backends name.
const guideCredentials = `apiVersion: v1
kind: Secret
metadata:
  name: garage-s3-credentials
  namespace: openstack
stringData:
  access-key-id: GKexample0001
  secret-access-key: secretexample0001
`

// GuideWrites walks the guide's ControlPlane through the in-process
// Metacontroller (simulate/chain) and counts the API writes it
// makes at each step, from the edit to converged:
//
//   - install: the guide's ControlPlane (both stores) applied where only the
//     Secrets it names exist (S3 credentials, database, service user);
//   - Step 3: isDefault moved from default to secondary in one edit;
//   - Step 2: the second entry added to the devstack's one-store ControlPlane.
//
// The chain syncs in the order of ReactAtOnce: a Glance renders after each
// of its backends, as it does under a real Metacontroller whose upstream
// syncs are spread out by its client-side rate limit.
func GuideWrites() ([]WriteStep, error) { return GuideWalk(chain.Controllers(), Now) }

// GuideWalk is the walk of GuideWrites with the given controllers (the
// hooks in-process, or served elsewhere), its worlds starting at start.
func GuideWalk(controllers []chain.Controller, start time.Time) ([]WriteStep, error) {
	return guideWalk(controllers, start, walkOptions{})
}

// walkOptions vary the guide's walk for tests.
type walkOptions struct {
	// log keeps every write of each step in WriteStep.Log.
	log bool
	// order sets the order of syncs on each world; nil is ReactAtOnce.
	order func(*chain.World)
}

func guideWalk(controllers []chain.Controller, start time.Time, opts walkOptions) ([]WriteStep, error) {
	twoStores, err := guideObject(guide.ControlPlane)
	if err != nil {
		return nil, err
	}
	switched, err := guideObject(guide.ControlPlane)
	if err != nil {
		return nil, err
	}
	oneStore, err := guideObject(guide.ControlPlane)
	if err != nil {
		return nil, err
	}
	entries := backendsOf(switched)
	entries[0].(map[string]any)["isDefault"], entries[1].(map[string]any)["isDefault"] = false, true
	glance := oneStore["spec"].(map[string]any)["services"].(map[string]any)["glance"].(map[string]any)
	glance["backends"] = backendsOf(oneStore)[:1]

	var steps []WriteStep
	w, err := newGuideWorld(controllers, start, opts)
	if err != nil {
		return nil, err
	}
	for _, s := range []struct {
		name string
		cp   chain.Object
	}{{"install", twoStores}, {"Step 3", switched}} {
		st, err := measureStep(w, s.name, s.cp)
		if err != nil {
			return nil, err
		}
		steps = append(steps, st)
	}
	w, err = newGuideWorld(controllers, start, opts)
	if err != nil {
		return nil, err
	}
	if _, err := measureStep(w, "devstack", oneStore); err != nil {
		return nil, err
	}
	st, err := measureStep(w, "Step 2", twoStores)
	if err != nil {
		return nil, err
	}
	// In the order the guide's user meets them.
	return []WriteStep{steps[0], st, steps[1]}, nil
}

// guideWorld is a world the guide's walk runs in, with the controllers
// whose hooks it calls.
type guideWorld struct {
	*chain.World
	controllers []chain.Controller
	log         bool
}

func newGuideWorld(controllers []chain.Controller, start time.Time, opts walkOptions) (guideWorld, error) {
	w := chain.NewWorld(start)
	w.ReactAtOnce = true
	if opts.order != nil {
		opts.order(w)
	}
	creds, err := guideObject(guideCredentials)
	if err != nil {
		return guideWorld{}, err
	}
	for _, o := range append(glanceSecrets(), creds) {
		if err := w.Apply(o); err != nil {
			return guideWorld{}, err
		}
	}
	return guideWorld{w, controllers, opts.log}, nil
}

// measureStep applies one object (the user's edit) and converges.
func measureStep(w guideWorld, name string, edit chain.Object) (WriteStep, error) {
	w.ResetStats()
	var log []chain.Write
	if w.log {
		w.OnWrite = func(wr chain.Write) { log = append(log, wr) }
		defer func() { w.OnWrite = nil }()
	}
	if err := w.Apply(edit); err != nil {
		return WriteStep{}, fmt.Errorf("%s: %w", name, err)
	}
	res, err := w.Run(w.controllers, 30)
	if err == nil && !res.Converged {
		err = fmt.Errorf("did not converge in %d rounds", res.Rounds)
	}
	if err != nil {
		return WriteStep{}, fmt.Errorf("%s: %w", name, err)
	}
	return WriteStep{Name: name, Stats: w.Stats(), Objects: w.Objects(), Log: log}, nil
}

func guideObject(doc string) (chain.Object, error) {
	var o chain.Object
	if err := yaml.Unmarshal([]byte(doc), &o); err != nil {
		return nil, err
	}
	return o, nil
}

func backendsOf(cp chain.Object) []any {
	b, _ := cp["spec"].(map[string]any)["services"].(map[string]any)["glance"].(map[string]any)["backends"].([]any)
	return b
}

// writeKinds are the kinds the table lists, parents first, in the order a
// change flows down.
var writeKinds = []string{"ControlPlane", "Glance", "GlanceBackend", "Secret", "ConfigMap", "Job", "Deployment", "Service"}

// Cell says what was written to one kind: "1 create, 2 status", or "-".
func Cell(w chain.Writes) string {
	var parts []string
	for _, p := range []struct {
		n    int
		verb string
	}{{w.Create, "create"}, {w.Update, "update"}, {w.Status, "status"}, {w.Delete, "delete"}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.verb))
		}
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}

// WritesKinds is every kind written in any step, writeKinds first.
func WritesKinds(steps []WriteStep) []string {
	kinds := append([]string(nil), writeKinds...)
	seen := map[string]bool{}
	for _, k := range kinds {
		seen[k] = true
	}
	for _, s := range steps {
		for _, k := range s.Stats.Kinds() {
			if !seen[k] {
				kinds, seen[k] = append(kinds, k), true
			}
		}
	}
	return kinds
}

// WritesMarkdown is the table docs/performance.md keeps: per kind, what
// each step wrote; then the totals, the syncs and the API requests.
func WritesMarkdown(steps []WriteStep) string {
	var b strings.Builder
	row := func(cells ...string) { b.WriteString("| " + strings.Join(cells, " | ") + " |\n") }
	head := []string{"Kind"}
	for _, s := range steps {
		head = append(head, s.Name)
	}
	row(head...)
	row(strings.Split(strings.Repeat("---,", len(head)), ",")[:len(head)]...)
	for _, k := range WritesKinds(steps) {
		cells := []string{k}
		for _, s := range steps {
			cells = append(cells, Cell(s.Stats.Writes[k]))
		}
		row(cells...)
	}
	for _, r := range []struct {
		name string
		f    func(WriteStep) int
	}{
		{"**writes**", func(s WriteStep) int { return s.Stats.Total().Total() }},
		{"syncs (each reads its parent once)", func(s WriteStep) int { return s.Stats.SyncCount() }},
		{"**API requests**", WriteStep.Requests},
	} {
		cells := []string{r.name}
		for _, s := range steps {
			cells = append(cells, fmt.Sprint(r.f(s)))
		}
		row(cells...)
	}
	return b.String()
}
