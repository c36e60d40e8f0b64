// Package storestate is where one store of a Glance stands in a sync: its
// states, the events that move it, and the one transition function between
// them. What the config renders, what the first render waits for and what
// status says are each read off the state rather than off an order of
// flags, and every change of state goes through Next, so the table test of
// every state and event is the whole of the machine.
package storestate

import "fmt"

// State is where one store stands in this sync. The zero value is Pending:
// an attached backend starts on its way until its evaluation says more.
type State int

const (
	// Pending: on its way. Its backend has not reported yet, or has
	// reported usable credentials and its store Secret is not there yet.
	// Left out, but not a fault.
	Pending State = iota
	// Outdated: its store Secret was rendered from an older spec; on its
	// way like a pending one unless the running section is held (Held).
	Outdated
	// Skipped: a fault (its spec, its credentials or CA bundle, a store
	// Secret that is not its own) leaves it out.
	Skipped
	// CAConflict: left out because its CA bundle cannot be honoured on a
	// release with one process-wide bundle.
	CAConflict
	// Rendered: its store Secret's section is rendered.
	Rendered
	// Held: the running config's section is rendered while its store
	// Secret catches up with a spec change.
	Held
	// Retiring: its backend is gone and its running section is kept.
	Retiring
	// Dropped: its backend is gone and spec.dropRetiredStores lists it.
	Dropped
	// Lost: its backend is gone and its running section cannot be kept.
	Lost
)

// States are every state, in order; the table test walks them all.
var States = []State{Pending, Outdated, Skipped, CAConflict, Rendered, Held, Retiring, Dropped, Lost}

var stateNames = [...]string{"Pending", "Outdated", "Skipped", "CAConflict", "Rendered", "Held", "Retiring", "Dropped", "Lost"}

func (s State) String() string { return named(int(s), stateNames[:], "State") }

// Rendered reports whether the store's section goes into the backends
// Secret.
func (s State) Rendered() bool { return s == Rendered || s == Held || s == Retiring }

// Waiting reports whether the store is on its way, which the first render
// waits for.
func (s State) Waiting() bool { return s == Pending || s == Outdated }

// Event is what a sync learns of a store, in the order it learns it.
type Event int

const (
	// Fault: its spec, its backend's conditions or its store Secret rule
	// it out.
	Fault Event = iota
	// Awaited: its backend has not reported, or its store Secret is not
	// there yet.
	Awaited
	// SecretOutdated: its store Secret was rendered from an older spec.
	SecretOutdated
	// SecretCurrent: its store Secret holds the section of its spec.
	SecretCurrent
	// RunningHeld: the running config's section is kept while its store
	// Secret catches up.
	RunningHeld
	// CABundleConflict: the one process-wide CA bundle cannot serve it.
	CABundleConflict
	// EgressAwaited: the observed NetworkPolicy does not allow its
	// endpoint yet.
	EgressAwaited
	// BackendGone: the running config holds it and no attached backend
	// names it any more.
	BackendGone
	// DropListed: spec.dropRetiredStores lists the retiring store.
	DropListed
	// RunningKept: the retiring store's running section reads as the
	// service writes it and is kept.
	RunningKept
)

// Events are every event, in order; the table test walks them all.
var Events = []Event{Fault, Awaited, SecretOutdated, SecretCurrent, RunningHeld, CABundleConflict, EgressAwaited, BackendGone, DropListed, RunningKept}

var eventNames = [...]string{"Fault", "Awaited", "SecretOutdated", "SecretCurrent", "RunningHeld", "CABundleConflict", "EgressAwaited", "BackendGone", "DropListed", "RunningKept"}

func (e Event) String() string { return named(int(e), eventNames[:], "Event") }

// named is the name of the i-th value of a kind, or the kind and the
// number for one that has none.
func named(i int, names []string, kind string) string {
	if i < 0 || i >= len(names) {
		return fmt.Sprintf("%s(%d)", kind, i)
	}
	return names[i]
}

// edge is one transition: from a state, on an event.
type edge struct {
	from State
	on   Event
}

// transitions are the only moves a store makes. An attached store is
// evaluated once from Pending; a store the config renders may then be held
// back for its CA bundle or its egress; a retired one starts Lost when its
// backend is gone and is dropped or kept from there.
var transitions = map[edge]State{
	{Pending, Fault}:             Skipped,
	{Pending, Awaited}:           Pending,
	{Pending, SecretOutdated}:    Outdated,
	{Pending, SecretCurrent}:     Rendered,
	{Outdated, RunningHeld}:      Held,
	{Rendered, CABundleConflict}: CAConflict,
	{Held, CABundleConflict}:     CAConflict,
	{Retiring, CABundleConflict}: CAConflict,
	{Rendered, EgressAwaited}:    Pending,
	{Pending, BackendGone}:       Lost,
	{Lost, DropListed}:           Dropped,
	{Lost, RunningKept}:          Retiring,
}

// Next is the state a store in state s moves to on event e. ok is false
// for a move the machine does not make; the state is then s unchanged, so
// a caller that asks for it changes nothing.
func Next(s State, e Event) (next State, ok bool) {
	next, ok = transitions[edge{s, e}]
	if !ok {
		return s, false
	}
	return next, true
}
