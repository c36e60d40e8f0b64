// Package chain runs the hooks in-process the way Metacontroller chains
// them: customize -> related objects, sync -> children and status, and the
// result becomes the observed state of the next round. It is an in-memory
// stand-in for the API server and Metacontroller, used by the offline
// renderer and by scenario tests; it follows the recorded Metacontroller
// contract (children keyed "<Kind>.<apiVersion>", deletion of children a
// sync stops returning, children updated by Metacontroller's three-way
// merge and only when it changes them, a status written only when it
// changed, a parent synced only when what it reads changed or a resync it
// asked for is due, customize answers cached per generation) and the API
// server rules the hooks rely on (immutable ConfigMaps and Secrets,
// immutable Job templates, generation bumps on spec changes, stringData
// folded into data). At the end of each round a Job controller ends every
// running Job (successfully unless JobResult says otherwise) and a
// Deployment controller finishes every rollout, as the real ones would once
// the pods ran; a test that runs the pods itself takes both over
// (JobResult JobsRunUntilFinished and FinishJob for the Jobs, Rollouts off
// and ReportRollout for the Deployments). Stats counts the API writes and
// hook calls Metacontroller would make.
package chain

import (
	"cmp"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Object is one API object as JSON-shaped maps.
type Object = map[string]any

// Ref identifies an object.
type Ref struct {
	APIVersion, Kind, Namespace, Name string
}

func (r Ref) String() string {
	if r.Namespace == "" {
		return r.Kind + " " + r.Name
	}
	return r.Kind + " " + r.Namespace + "/" + r.Name
}

// RefOf reads an object's identity.
func RefOf(o Object) Ref {
	meta, _ := o["metadata"].(map[string]any)
	str := func(m map[string]any, k string) string { s, _ := m[k].(string); return s }
	return Ref{APIVersion: str(o, "apiVersion"), Kind: str(o, "kind"), Namespace: str(meta, "namespace"), Name: str(meta, "name")}
}

// World is the in-memory cluster.
type World struct {
	objects map[Ref]Object
	// Now is the clock; each round advances it by a second so creation
	// times order the objects made in different rounds.
	Now time.Time
	// Rollouts makes every Deployment report a finished rollout at the end
	// of each round, as the Deployment controller would once pods are up.
	Rollouts bool
	// JobResult, when set, decides how each Job that has not finished
	// ends at the end of a round (tests make one fail, or keep it
	// running, or run its containers for real); when nil every Job
	// succeeds, as if its pods ran.
	JobResult func(w *World, job Object) (JobOutcome, error)
	// AfterSync, when set, is called after every sync is applied, so tests
	// can check invariants on every intermediate state.
	AfterSync func(w *World, synced Ref) error
	// OnWrite, when set, sees every API write as it is counted, so tests
	// can check what each one changed. It must not modify what it sees.
	OnWrite func(Write)
	// ReactAtOnce changes the order of syncs within a round: after each
	// sync, the parents of the controllers after it (a GlanceBackend's
	// Glance) whose input changed sync at once, before the next parent of
	// its own controller. That is the order a cluster sees when the syncs
	// upstream are spread out (Metacontroller's client-side rate limit)
	// while the controllers downstream are idle: a Glance then sees its
	// backends become ready one by one. Without it, every parent of one
	// controller syncs before the next controller's, and a Glance sees all
	// of its backends' first renders at once.
	ReactAtOnce bool
	// ReactBetweenWrites, with ReactAtOnce, lets the parents downstream
	// sync between the writes of one sync too, on the state the writes so
	// far made: Metacontroller makes a sync's writes one request after the
	// other, and a parent that reads the objects written reacts to each.
	// A Glance then sees a store Secret deleted before its backend's status
	// says why, or one backend's isDefault moved before the other's. (It
	// also sees a backend render completely before its sibling exists,
	// which a real cluster does not show: the sibling's create is made
	// before the first backend's own writes, which wait behind it.)
	ReactBetweenWrites bool
	// EventTTL is how long the API server keeps an Event after its
	// creation (kube-apiserver's --event-ttl, one hour by default); at the
	// start of each round of Run the Events older than that are gone.
	// Zero keeps them.
	EventTTL   time.Duration
	version    int
	afterWrite func() error

	// What Metacontroller keeps between syncs: the version of what each
	// parent's last sync read, the resyncs asked for, the customize
	// answers by parent generation; and what it did, counted.
	seen       map[Ref]string
	resyncAt   map[Ref]time.Time
	customized map[Ref]customizeEntry
	stats      Stats

	index
}

// NewWorld starts an empty cluster at a clock.
func NewWorld(now time.Time) *World {
	w := &World{objects: map[Ref]Object{}, Now: now, Rollouts: true, EventTTL: time.Hour}
	w.init()
	return w
}

func (w *World) init() {
	if w.seen == nil {
		w.seen, w.resyncAt, w.customized = map[Ref]string{}, map[Ref]time.Time{}, map[Ref]customizeEntry{}
		w.ResetStats()
	}
	if w.byKind == nil {
		w.index = newIndex()
	}
}

// Get returns a copy of an object.
func (w *World) Get(r Ref) (Object, bool) {
	o, ok := w.objects[r]
	if !ok {
		return nil, false
	}
	return deepCopy(o), true
}

// Objects returns copies of every object, sorted by kind, namespace, name.
func (w *World) Objects() []Object {
	refs := SortedRefs(w.objects)
	out := make([]Object, 0, len(refs))
	for _, r := range refs {
		out = append(out, deepCopy(w.objects[r]))
	}
	return out
}

// ObjectsIn returns copies of the objects of the given kinds in a
// namespace, sorted as Objects sorts them. It walks only those kinds (the
// index), so asking for the few objects one object's admission reads costs
// nothing for the thousands of others a render may hold.
func (w *World) ObjectsIn(namespace string, kinds ...string) []Object {
	var refs []Ref
	for _, k := range kinds {
		for r := range w.byKind[k] {
			if r.Namespace == namespace {
				refs = append(refs, r)
			}
		}
	}
	SortRefs(refs)
	out := make([]Object, 0, len(refs))
	for _, r := range refs {
		out = append(out, deepCopy(w.objects[r]))
	}
	return out
}

// SortRefs sorts refs the way objects are listed everywhere: by kind,
// namespace and name, then apiVersion.
func SortRefs(refs []Ref) {
	slices.SortFunc(refs, func(a, b Ref) int {
		return cmp.Or(strings.Compare(a.Kind, b.Kind), strings.Compare(a.Namespace, b.Namespace),
			strings.Compare(a.Name, b.Name), strings.Compare(a.APIVersion, b.APIVersion))
	})
}

// SortedRefs returns the keys of m in SortRefs order, so a walk over a set
// of objects is the same on every run.
func SortedRefs[V any](m map[Ref]V) []Ref {
	refs := make([]Ref, 0, len(m))
	for r := range m {
		refs = append(refs, r)
	}
	SortRefs(refs)
	return refs
}

// Apply writes an object as a user would with kubectl apply: metadata and
// spec (or data) replaced, status kept, generation bumped when the spec
// changed. It answers the API server's errors for immutable objects.
func (w *World) Apply(o Object) error { return w.apply(deepCopy(o)) }

// apply is Apply of an object the world may keep as it is: JSON-shaped
// (see toJSONShape) and written by nobody else afterwards.
func (w *World) apply(o Object) error {
	r := RefOf(o)
	if r.APIVersion == "" || r.Kind == "" || r.Name == "" {
		return fmt.Errorf("object without apiVersion, kind or metadata.name")
	}
	foldStringData(o)
	old, exists := w.objects[r]
	meta := metadataOf(o)
	if !exists {
		w.create(r, o)
		return nil
	}
	if immutable(old) && !reflect.DeepEqual(payload(old), payload(o)) {
		return fmt.Errorf("%s is immutable: its data cannot change", r)
	}
	if jobTemplateChanged(old, o) {
		return fmt.Errorf("%s: spec.template is immutable", r)
	}
	oldMeta := metadataOf(old)
	for _, k := range []string{"uid", "creationTimestamp", "generation", "resourceVersion", "deletionTimestamp", "finalizers"} {
		if v, ok := oldMeta[k]; ok {
			meta[k] = v
		}
	}
	if st, ok := old["status"]; ok {
		o["status"] = st
	} else {
		delete(o, "status")
	}
	if reflect.DeepEqual(normalize(old), normalize(o)) {
		return nil
	}
	if hasGeneration(r.Kind) && !reflect.DeepEqual(payload(old), payload(o)) {
		meta["generation"] = toInt(oldMeta["generation"]) + 1
	}
	w.version++
	meta["resourceVersion"] = strconv.Itoa(w.version)
	w.store(r, o)
	return nil
}

// create stores a new object with what the API server sets on create.
func (w *World) create(r Ref, o Object) {
	meta := metadataOf(o)
	w.version++
	// An object read from a cluster brings its uid; the others get one
	// derived from their name, so renders are repeatable.
	if uid, _ := meta["uid"].(string); uid == "" {
		meta["uid"] = uidFor(r)
	}
	meta["creationTimestamp"] = w.Now.UTC().Format(time.RFC3339)
	meta["resourceVersion"] = strconv.Itoa(w.version)
	if hasGeneration(r.Kind) {
		meta["generation"] = int64(1)
	}
	w.store(r, o)
}

// store puts o in the world under r.
func (w *World) store(r Ref, o Object) {
	if old, ok := w.objects[r]; ok {
		w.unindex(r, old)
	}
	w.objects[r] = o
	w.addIndex(r, o)
}

// encode is the object under r as JSON; the bytes are shared by every
// request that carries the object until it changes, so nobody may write
// into them.
func (w *World) encode(r Ref) json.RawMessage {
	if raw, ok := w.encoded[r]; ok {
		return raw
	}
	raw, _ := json.Marshal(w.objects[r])
	w.encoded[r] = raw
	return raw
}

// SetStatus replaces an object's status, as the status subresource does.
func (w *World) SetStatus(r Ref, status any) bool { return w.setStatus(r, toJSONShape(status)) }

// setStatus is SetStatus of a JSON-shaped status the world may keep.
func (w *World) setStatus(r Ref, st any) bool {
	o, ok := w.objects[r]
	if !ok {
		return false
	}
	if reflect.DeepEqual(o["status"], st) {
		return false
	}
	o["status"] = st
	w.version++
	metadataOf(o)["resourceVersion"] = strconv.Itoa(w.version)
	w.changed(r)
	return true
}

// snapshot is a copy of o for OnWrite, taken before o is changed in place;
// nil when nothing looks.
func (w *World) snapshot(o Object) Object {
	if w.OnWrite == nil {
		return nil
	}
	return deepCopy(o)
}

// Delete removes an object and, as the garbage collector would, everything
// it controls but Events, which the garbage collector ignores (they go at
// their TTL). An object with finalizers only gets its deletionTimestamp,
// as the API server does; it goes once the last finalizer is removed.
func (w *World) Delete(r Ref) bool {
	o, ok := w.objects[r]
	if !ok {
		return false
	}
	if fins, _ := metadataOf(o)["finalizers"].([]any); len(fins) > 0 {
		if metadataOf(o)["deletionTimestamp"] == nil {
			metadataOf(o)["deletionTimestamp"] = w.Now.UTC().Format(time.RFC3339)
			w.touch(r, o)
		}
		return true
	}
	delete(w.objects, r)
	w.unindex(r, o)
	uid, _ := metadataOf(o)["uid"].(string)
	for _, cr := range w.controlledBy(uid) {
		if !isEvent(cr) {
			w.Delete(cr)
		}
	}
	return true
}

func isEvent(r Ref) bool {
	return r.Kind == "Event" && (r.APIVersion == "v1" || r.APIVersion == "events.k8s.io/v1")
}

// expireEvents deletes the Events created EventTTL or longer ago, as the
// API server's TTL does: not a write of Metacontroller's, so not counted.
func (w *World) expireEvents() {
	if w.EventTTL <= 0 {
		return
	}
	for _, r := range w.refsOfKind("Event") {
		created, err := time.Parse(time.RFC3339, fmt.Sprint(metadataOf(w.objects[r])["creationTimestamp"]))
		if err == nil && isEvent(r) && !w.Now.Before(created.Add(w.EventTTL)) {
			w.Delete(r)
		}
	}
}

// touch records a change of o, stored under r, made in place: a new
// resourceVersion, and its cached encoding forgotten.
func (w *World) touch(r Ref, o Object) {
	w.version++
	metadataOf(o)["resourceVersion"] = strconv.Itoa(w.version)
	w.changed(r)
}

func hasFinalizer(o Object, name string) bool {
	fins, _ := metadataOf(o)["finalizers"].([]any)
	for _, f := range fins {
		if f == name {
			return true
		}
	}
	return false
}

// addFinalizer puts a finalizer on an object that is not being deleted.
func (w *World) addFinalizer(r Ref, name string) {
	o := w.objects[r]
	if o == nil || hasFinalizer(o, name) {
		return
	}
	before := w.snapshot(o)
	fins, _ := metadataOf(o)["finalizers"].([]any)
	metadataOf(o)["finalizers"] = append(fins, name)
	w.touch(r, o)
	w.record(Write{Ref: r, Verb: VerbUpdate, Before: before, After: o})
}

// removeFinalizer takes a finalizer off; an object being deleted goes
// with its last one.
func (w *World) removeFinalizer(r Ref, name string) {
	o := w.objects[r]
	if o == nil || !hasFinalizer(o, name) {
		return
	}
	before := w.snapshot(o)
	var kept []any
	fins, _ := metadataOf(o)["finalizers"].([]any)
	for _, f := range fins {
		if f != name {
			kept = append(kept, f)
		}
	}
	if len(kept) == 0 {
		delete(metadataOf(o), "finalizers")
	} else {
		metadataOf(o)["finalizers"] = kept
	}
	w.touch(r, o)
	w.record(Write{Ref: r, Verb: VerbUpdate, Before: before, After: o})
	if len(kept) == 0 && metadataOf(o)["deletionTimestamp"] != nil {
		w.Delete(r)
	}
}

// finishRollouts reports every Deployment as rolled out.
func (w *World) finishRollouts() bool {
	changed := false
	for _, r := range w.refsOfKind("Deployment") {
		o := w.objects[r]
		if w.SetStatus(r, RolledOut(o)) {
			changed = true
		}
	}
	return changed
}

// ReportRollout writes a Deployment's status as the Deployment controller
// does for its current generation when updated pods run its current
// template and old pods an earlier one, all of them ready and available.
// With Rollouts off, a test that runs the pods itself reports them so.
func (w *World) ReportRollout(r Ref, updated, old int64) error {
	o, ok := w.objects[r]
	if !ok || r.Kind != "Deployment" {
		return fmt.Errorf("%s does not exist", r)
	}
	w.SetStatus(r, rolloutStatus(o, updated, old))
	return nil
}

func specReplicas(o Object) int64 {
	spec, _ := o["spec"].(map[string]any)
	if v, ok := spec["replicas"]; ok {
		return toInt(v)
	}
	return 1
}

// RolledOut is the status the Deployment controller writes for a
// Deployment whose rollout finished: every replica of its spec updated,
// ready and available, at its current generation.
func RolledOut(o Object) map[string]any { return rolloutStatus(o, specReplicas(o), 0) }

func rolloutStatus(o Object, updated, old int64) map[string]any {
	return map[string]any{"observedGeneration": toInt(metadataOf(o)["generation"]), "replicas": updated + old,
		"updatedReplicas": updated, "readyReplicas": updated + old, "availableReplicas": updated + old}
}

func (w *World) refsOfKind(kind string) []Ref {
	refs := make([]Ref, 0, len(w.byKind[kind]))
	for r := range w.byKind[kind] {
		refs = append(refs, r)
	}
	SortRefs(refs)
	return refs
}

// uidFor is deterministic, so renders and tests are repeatable.
func uidFor(r Ref) string {
	h := sha256.Sum256([]byte(r.String()))
	x := hex.EncodeToString(h[:16])
	return x[0:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:32]
}

func hasGeneration(kind string) bool {
	return kind != "ConfigMap" && kind != "Secret" && kind != "Service" && kind != "Event"
}

func immutable(o Object) bool { b, _ := o["immutable"].(bool); return b }

// payload is what an object holds besides metadata and status.
func payload(o Object) Object {
	p := Object{}
	for k, v := range o {
		if k != "metadata" && k != "status" && k != "apiVersion" && k != "kind" {
			p[k] = v
		}
	}
	return p
}

// normalize drops the server-managed metadata for comparisons.
func normalize(o Object) Object {
	// Only the two maps it changes are copied: the result is compared,
	// never written.
	c := maps.Clone(o)
	meta, _ := o["metadata"].(map[string]any)
	meta = maps.Clone(meta)
	if meta == nil {
		meta = map[string]any{}
	}
	delete(meta, "resourceVersion")
	delete(meta, "generation")
	c["metadata"] = meta
	return c
}

func metadataOf(o Object) map[string]any {
	meta, ok := o["metadata"].(map[string]any)
	if !ok {
		meta = map[string]any{}
		o["metadata"] = meta
	}
	return meta
}

func controllerUID(o Object) string {
	refs, _ := metadataOf(o)["ownerReferences"].([]any)
	for _, r := range refs {
		m, _ := r.(map[string]any)
		if c, _ := m["controller"].(bool); c {
			s, _ := m["uid"].(string)
			return s
		}
	}
	return ""
}

// foldStringData turns a Secret's stringData into data, as the API server does.
func foldStringData(o Object) {
	if o["kind"] != "Secret" {
		return
	}
	sd, ok := o["stringData"].(map[string]any)
	if !ok {
		return
	}
	data, _ := o["data"].(map[string]any)
	if data == nil {
		data = map[string]any{}
	}
	for k, v := range sd {
		s, _ := v.(string)
		data[k] = base64.StdEncoding.EncodeToString([]byte(s))
	}
	o["data"] = data
	delete(o, "stringData")
}

func toInt(v any) int64 {
	switch n := v.(type) {
	case int64:
		return n
	case int:
		return int64(n)
	case float64:
		return int64(n)
	case json.Number:
		i, _ := n.Int64()
		return i
	}
	return 0
}

// toJSONShape turns any value into maps, slices and JSON scalars.
func toJSONShape(v any) any {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var out any
	_ = json.Unmarshal(raw, &out)
	return normalizeNumbers(out)
}

// normalizeNumbers makes whole float64 numbers int64 so comparisons and
// generation arithmetic do not depend on how a value was decoded.
func normalizeNumbers(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, c := range t {
			t[k] = normalizeNumbers(c)
		}
	case []any:
		for i, c := range t {
			t[i] = normalizeNumbers(c)
		}
	case float64:
		if t == float64(int64(t)) {
			return int64(t)
		}
	}
	return v
}

func deepCopy(o Object) Object {
	if o == nil {
		return nil
	}
	s, _ := toJSONShape(o).(map[string]any)
	return s
}
