package chain

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
)

// Type is an apiVersion and kind.
type Type struct{ APIVersion, Kind string }

// Controller is one CompositeController: its parent type, child types and
// hooks.
type Controller struct {
	Name     string
	Parent   Type
	Children []Type
	// OnDelete are the child types registered with updateStrategy OnDelete:
	// Metacontroller creates and deletes them, and never updates one.
	OnDelete []Type
	// Optional are child types a cluster may not serve (a CRD of someone
	// else's): the chart registers them only where the API server serves
	// them, since Metacontroller starts no controller with a child
	// resource it cannot find. The chain manages them as any other.
	Optional  []Type
	Customize func(*metacontroller.CustomizeRequest) (*metacontroller.CustomizeResponse, error)
	Sync      func(*metacontroller.SyncRequest, time.Time) (*metacontroller.SyncResponse, error)
	// Finalizes says the controller has a finalize hook (the sync hook's
	// path): Metacontroller then puts its finalizer on every parent, and
	// while a parent is being deleted calls the hook with finalizing set
	// until it answers finalized.
	Finalizes bool
}

// Finalizer is the finalizer Metacontroller puts on the parents of a
// CompositeController with a finalize hook.
func (c Controller) Finalizer() string { return "metacontroller.io/compositecontroller-" + c.Name }

// resourceKinds maps the plural resource names customize hooks use to kinds.
var resourceKinds = map[string]string{
	"secrets": "Secret", "configmaps": "ConfigMap", "deployments": "Deployment", "services": "Service",
	"glances": "Glance", "glancebackends": "GlanceBackend", "controlplanes": "ControlPlane",
	"pods": "Pod",
	// External Secrets' stores, which spec.secretStoreRef names.
	"clustersecretstores": "ClusterSecretStore", "secretstores": "SecretStore",
}

// clusterScoped are the resources of resourceKinds without a namespace.
// Metacontroller (v4.15 and later) lists such a related resource across the
// cluster whatever namespace the rule names, and keys it by its bare name
// also for a namespaced parent.
var clusterScoped = map[string]bool{"clustersecretstores": true}

// Result of a Run.
type Result struct {
	Rounds    int
	Converged bool
}

// Run syncs the parents of every controller, round after round, until a
// round changes nothing and no parent waits for a resync it asked for, or
// maxRounds is reached. As under Metacontroller, a parent is synced only
// when something its sync reads changed since its last sync (the parent
// itself, a child, a related object), or when the resync it asked for
// (resyncAfterSeconds) is due; when nothing else happens, the clock jumps to
// the next resync due.
func (w *World) Run(controllers []Controller, maxRounds int) (Result, error) {
	for round := 1; round <= maxRounds; round++ {
		w.expireEvents()
		before := w.version
		for i, c := range controllers {
			for _, r := range w.parentsOf(c) {
				if err := w.syncAndReact(controllers, i, r); err != nil {
					return Result{Rounds: round}, err
				}
			}
		}
		if err := w.finishJobs(); err != nil {
			return Result{Rounds: round}, err
		}
		if w.Rollouts {
			w.finishRollouts()
		}
		if w.version == before {
			next, pending := w.nextResync()
			if !pending {
				return Result{Rounds: round, Converged: true}, nil
			}
			w.Now = maxTime(w.Now.Add(time.Second), next)
			continue
		}
		w.Now = w.Now.Add(time.Second)
	}
	return Result{Rounds: maxRounds}, nil
}

// parentsOf lists the parents of a controller, sorted.
func (w *World) parentsOf(c Controller) []Ref {
	var refs []Ref
	for _, r := range w.refsOfKind(c.Parent.Kind) {
		if r.APIVersion == c.Parent.APIVersion {
			refs = append(refs, r)
		}
	}
	return refs
}

// syncAndReact syncs one parent of controllers[i]; with ReactAtOnce, the
// parents of the controllers after it whose input changed then sync at once,
// before the next parent of controllers[i] (with ReactBetweenWrites, after
// each write of that sync too).
func (w *World) syncAndReact(controllers []Controller, i int, r Ref) error {
	outer := w.afterWrite
	defer func() { w.afterWrite = outer }()
	if w.ReactAtOnce && w.ReactBetweenWrites {
		w.afterWrite = func() error { return w.reactDownstream(controllers, i) }
	}
	synced, err := w.syncOne(controllers[i], r)
	w.afterWrite = outer
	if err != nil || !synced {
		return err
	}
	if w.AfterSync != nil {
		if err := w.AfterSync(w, r); err != nil {
			return err
		}
	}
	if !w.ReactAtOnce {
		return nil
	}
	return w.reactDownstream(controllers, i)
}

// reactDownstream syncs the parents of the controllers after controllers[i]
// whose input changed.
func (w *World) reactDownstream(controllers []Controller, i int) error {
	for j := i + 1; j < len(controllers); j++ {
		for _, d := range w.parentsOf(controllers[j]) {
			if err := w.syncAndReact(controllers, j, d); err != nil {
				return err
			}
		}
	}
	return nil
}

// syncOne is one customize + sync of one parent, when something it reads
// changed since its last sync or a resync it asked for is due.
func (w *World) syncOne(c Controller, r Ref) (bool, error) {
	parent, ok := w.objects[r]
	if !ok {
		return false, nil // deleted earlier in this round
	}
	deleting := metadataOf(parent)["deletionTimestamp"] != nil
	switch {
	case deleting && !(c.Finalizes && hasFinalizer(parent, c.Finalizer())):
		return false, nil // Metacontroller manages no children of it any more
	case !deleting && c.Finalizes:
		w.addFinalizer(r, c.Finalizer())
	}
	sel, err := w.selectInputs(c, r, w.cachedCustomize)
	if err != nil {
		return false, err
	}
	if !w.syncDue(r, sel) {
		return false, nil
	}
	req := w.request(r, sel)
	req.Finalizing = deleting
	w.stats.Syncs[c.Name]++
	resp, err := c.Sync(req, w.Now)
	if err != nil {
		return false, fmt.Errorf("sync %s: %w", r, err)
	}
	w.askResync(r, resp.ResyncAfterSeconds)
	if err := ApplySync(worldCluster{w}, c, parent, req.Children, resp); err != nil {
		return true, err
	}
	if deleting && resp.Finalized {
		w.removeFinalizer(r, c.Finalizer())
	}
	return true, nil
}

// syncDue reports whether what the parent reads changed since its last
// sync, or a resync it asked for is due; either way the sync it calls for
// is recorded as done.
func (w *World) syncDue(r Ref, in inputs) bool {
	fp := w.fingerprint(r, in)
	due := !w.resyncAt[r].IsZero() && !w.Now.Before(w.resyncAt[r])
	if w.seen[r] == fp && !due {
		return false
	}
	w.seen[r] = fp
	if due {
		delete(w.resyncAt, r)
	}
	return true
}

// ResyncAll makes every parent sync in the next Run whether or not what it
// reads changed, as Metacontroller does when its informers replay every
// cached object (--cache-flush-interval) or a resyncPeriodSeconds comes
// round: a converged world must answer each such sync with no write.
func (w *World) ResyncAll() { clear(w.seen) }

// askResync records a resync the parent's sync asked for, keeping the
// earlier one when one is already due.
func (w *World) askResync(r Ref, afterSeconds int) {
	if afterSeconds <= 0 {
		return
	}
	at := w.Now.Add(time.Duration(afterSeconds) * time.Second)
	if cur := w.resyncAt[r]; cur.IsZero() || at.Before(cur) {
		w.resyncAt[r] = at
	}
}

// ResyncParentsOf makes every parent of c sync in the next round, as
// Metacontroller's resyncPeriodSeconds does when the period is over: a
// sync that reads something besides its request (the store checks of
// the GlanceBackend hook) sees it change only then.
func (w *World) ResyncParentsOf(c Controller) {
	w.init()
	for _, r := range w.parentsOf(c) {
		w.resyncAt[r] = w.Now
	}
}

// nextResync is the earliest resync a parent asked for, if any.
func (w *World) nextResync() (time.Time, bool) {
	var next time.Time
	for r, at := range w.resyncAt {
		if _, ok := w.objects[r]; ok && (next.IsZero() || at.Before(next)) {
			next = at
		}
	}
	return next, !next.IsZero()
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// inputs are the objects one sync of a parent reads: its children (every
// object of a declared child type it controls) and its related objects
// (its customize answer resolved), by ObjectMap key.
type inputs struct {
	children, related map[string][]Ref
}

// customizeFunc answers the customize hook of c for the parent r.
type customizeFunc func(c Controller, r Ref, parent Object) (*metacontroller.CustomizeResponse, error)

// SyncRequest builds the request Metacontroller would send to c's sync hook
// for the parent r: its customize answer resolved into related objects, and
// every object of a declared child type it controls.
func (w *World) SyncRequest(c Controller, r Ref) (*metacontroller.SyncRequest, error) {
	if _, ok := w.objects[r]; !ok {
		return nil, fmt.Errorf("%s not found", r)
	}
	sel, err := w.selectInputs(c, r, callCustomize)
	if err != nil {
		return nil, err
	}
	return w.request(r, sel), nil
}

func callCustomize(c Controller, r Ref, parent Object) (*metacontroller.CustomizeResponse, error) {
	raw, _ := json.Marshal(parent)
	return c.Customize(&metacontroller.CustomizeRequest{Parent: raw})
}

// cachedCustomize calls the customize hook as Metacontroller does: again
// only when the parent's uid or generation changed since the last call.
func (w *World) cachedCustomize(c Controller, r Ref, parent Object) (*metacontroller.CustomizeResponse, error) {
	meta := metadataOf(parent)
	uid, _ := meta["uid"].(string)
	key := customizeKey{uid: uid, generation: toInt(meta["generation"])}
	if cached, ok := w.customized[r]; ok && cached.key == key {
		return cached.resp, nil
	}
	resp, err := callCustomize(c, r, parent)
	if err != nil {
		return nil, err
	}
	w.stats.Customizes[c.Name]++
	w.customized[r] = customizeEntry{key: key, resp: resp}
	return resp, nil
}

type customizeKey struct {
	uid        string
	generation int64
}

type customizeEntry struct {
	key  customizeKey
	resp *metacontroller.CustomizeResponse
}

// selectInputs resolves what a sync of r reads.
func (w *World) selectInputs(c Controller, r Ref, customize customizeFunc) (inputs, error) {
	parent := w.objects[r]
	in := inputs{children: map[string][]Ref{}, related: map[string][]Ref{}}
	if c.Customize != nil {
		resp, err := customize(c, r, parent)
		if err != nil {
			return in, fmt.Errorf("customize %s: %w", r, err)
		}
		for _, rr := range resp.RelatedResources {
			if err := w.addRelated(in.related, rr, r.Namespace); err != nil {
				return in, fmt.Errorf("customize %s: %w", r, err)
			}
		}
		// Two related resources may select the same object; it is sent once.
		for key, refs := range in.related {
			SortRefs(refs)
			in.related[key] = slices.Compact(refs)
		}
	}
	uid, _ := metadataOf(parent)["uid"].(string)
	for _, t := range c.Children {
		in.children[metacontroller.Key(t.Kind, t.APIVersion)] = nil
	}
	for _, cr := range w.controlledBy(uid) {
		key := metacontroller.Key(cr.Kind, cr.APIVersion)
		if refs, declared := in.children[key]; declared {
			in.children[key] = append(refs, cr)
		}
	}
	return in, nil
}

// fingerprint names the version of every object a sync of r reads: the
// same fingerprint twice means the sync would read the same request.
func (w *World) fingerprint(r Ref, in inputs) string {
	var b strings.Builder
	rv := func(x Ref) string { s, _ := metadataOf(w.objects[x])["resourceVersion"].(string); return s }
	b.WriteString(rv(r))
	for _, m := range []map[string][]Ref{in.children, in.related} {
		for _, key := range slices.Sorted(maps.Keys(m)) {
			b.WriteString("|" + key)
			for _, x := range m[key] {
				b.WriteString("," + x.Namespace + "/" + x.Name + "@" + rv(x))
			}
		}
		b.WriteString(";")
	}
	return b.String()
}

// request is the sync request of r reading in.
func (w *World) request(r Ref, in inputs) *metacontroller.SyncRequest {
	parentRaw := w.encode(r)
	objectMap := func(m map[string][]Ref) metacontroller.ObjectMap {
		out := metacontroller.ObjectMap{}
		for key, refs := range m {
			out[key] = map[string]json.RawMessage{}
			for _, x := range refs {
				out[key][x.Name] = w.encode(x)
			}
		}
		return out
	}
	return &metacontroller.SyncRequest{Parent: parentRaw, Children: objectMap(in.children), Related: objectMap(in.related)}
}

// selectorOf is the label selector a related resource names, nil for none
// (every object matches).
func selectorOf(ls *metav1.LabelSelector) (labels.Selector, error) {
	if ls == nil {
		return nil, nil
	}
	return metav1.LabelSelectorAsSelector(ls)
}

// addRelated selects objects the way Metacontroller serves a customize answer.
func (w *World) addRelated(into map[string][]Ref, rr metacontroller.RelatedResource, parentNS string) error {
	kind, ok := resourceKinds[rr.Resource]
	if !ok {
		return fmt.Errorf("unknown resource %q", rr.Resource)
	}
	ns := rr.Namespace
	switch {
	case clusterScoped[rr.Resource]:
		ns = ""
	case ns == "":
		ns = parentNS
	}
	sel, err := selectorOf(rr.LabelSelector)
	if err != nil {
		return err
	}
	key := metacontroller.Key(kind, rr.APIVersion)
	if _, ok := into[key]; !ok {
		into[key] = nil
	}
	into[key] = append(into[key], w.matching(rr, kind, ns, sel)...)
	return nil
}

// matching are the objects of the related resource in namespace ns that
// the selector (nil: any) matches: those it names, or else all of its kind.
func (w *World) matching(rr metacontroller.RelatedResource, kind, ns string, sel labels.Selector) []Ref {
	var out []Ref
	if len(rr.Names) > 0 {
		for _, name := range rr.Names {
			r := Ref{APIVersion: rr.APIVersion, Kind: kind, Namespace: ns, Name: name}
			if _, ok := w.objects[r]; ok && (sel == nil || sel.Matches(w.labels[r])) {
				out = append(out, r)
			}
		}
		return out
	}
	candidates := w.byKind[kind]
	if sel != nil {
		candidates = w.selected(kind, sel)
	}
	for r := range candidates {
		if r.APIVersion == rr.APIVersion && r.Namespace == ns && (sel == nil || sel.Matches(w.labels[r])) {
			out = append(out, r)
		}
	}
	return out
}

// wrote lets the parents downstream react to one write of the sync being
// applied (ReactBetweenWrites).
func (w *World) wrote() error {
	if w.afterWrite == nil {
		return nil
	}
	return w.afterWrite()
}

func labelsOf(o Object) map[string]string {
	out := map[string]string{}
	l, _ := metadataOf(o)["labels"].(map[string]any)
	for k, v := range l {
		s, _ := v.(string)
		out[k] = s
	}
	return out
}
