package chain

import (
	"maps"
	"slices"
)

// Writes counts the API writes Metacontroller makes to objects of one kind.
type Writes struct {
	// Create, Update and Delete are child writes; Status is a parent's
	// status update.
	Create, Update, Status, Delete int
}

// Verbs of a Write.
const (
	VerbCreate = "create"
	VerbUpdate = "update"
	VerbStatus = "status"
	VerbDelete = "delete"
)

// Write is one API write, as World.OnWrite sees it: copies of the object
// before it (nil for a create) and after it (nil for a delete). For a
// status update only the status differs between the two.
type Write struct {
	Ref           Ref
	Verb          string
	Before, After Object
}

// Total is every write.
func (w Writes) Total() int { return w.Create + w.Update + w.Status + w.Delete }

// Stats is what Metacontroller would have done, counted: the API writes it
// makes, by kind of the object written, and the hook calls, by controller.
// Every sync also reads its parent once, uncached, before the status update
// (Metacontroller reads the parent fresh to compare the status), so Syncs
// is the number of those reads too: a sync costs 1 API request plus its
// writes, each through Metacontroller's client-side rate limit.
type Stats struct {
	Writes map[string]Writes
	// Syncs and Customizes count the sync and customize hook calls per
	// controller. Metacontroller asks a parent's customize hook again only
	// when the parent's generation (or uid) changed.
	Syncs, Customizes map[string]int
}

// Kinds are the kinds written to, sorted.
func (s Stats) Kinds() []string { return slices.Sorted(maps.Keys(s.Writes)) }

// Total is every write to every kind.
func (s Stats) Total() Writes {
	var t Writes
	for _, w := range s.Writes {
		t.Create += w.Create
		t.Update += w.Update
		t.Status += w.Status
		t.Delete += w.Delete
	}
	return t
}

// SyncCount is every sync hook call.
func (s Stats) SyncCount() int {
	n := 0
	for _, v := range s.Syncs {
		n += v
	}
	return n
}

// Stats returns what was counted since the world was made or ResetStats.
func (w *World) Stats() Stats {
	return Stats{Writes: maps.Clone(w.stats.Writes), Syncs: maps.Clone(w.stats.Syncs), Customizes: maps.Clone(w.stats.Customizes)}
}

// ResetStats starts counting again, e.g. before the step of a walk to measure.
func (w *World) ResetStats() {
	w.stats = Stats{Writes: map[string]Writes{}, Syncs: map[string]int{}, Customizes: map[string]int{}}
}

func (w *World) count(kind string, f func(*Writes)) {
	c := w.stats.Writes[kind]
	f(&c)
	w.stats.Writes[kind] = c
}

// record counts one write and shows it to OnWrite.
func (w *World) record(wr Write) {
	w.count(wr.Ref.Kind, func(c *Writes) {
		switch wr.Verb {
		case VerbCreate:
			c.Create++
		case VerbUpdate:
			c.Update++
		case VerbStatus:
			c.Status++
		case VerbDelete:
			c.Delete++
		}
	})
	if w.OnWrite != nil {
		if wr.After != nil { // the world changes its objects in place
			wr.After = deepCopy(wr.After)
		}
		w.OnWrite(wr)
	}
}
