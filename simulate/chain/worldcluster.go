package chain

// worldCluster is the World as the Cluster a sync's answer is applied to:
// each write is counted, shown to OnWrite, and (ReactBetweenWrites) lets the
// parents downstream react before the next.
type worldCluster struct{ w *World }

// Observed is the stored object itself, not a copy: ApplySync only reads it.
func (wc worldCluster) Observed(r Ref) (Object, bool, error) {
	o, ok := wc.w.objects[r]
	return o, ok, nil
}

func (wc worldCluster) Create(o Object) error { return wc.write(o, VerbCreate) }

func (wc worldCluster) Update(o Object) error { return wc.write(o, VerbUpdate) }

// write stores a created or merged child, as the API server would.
func (wc worldCluster) write(o Object, verb string) error {
	w, r := wc.w, RefOf(o)
	existing := w.objects[r]
	if err := w.apply(o); err != nil {
		return err
	}
	w.record(Write{Ref: r, Verb: verb, Before: existing, After: w.objects[r]})
	return w.wrote()
}

func (wc worldCluster) Delete(r Ref) error {
	w := wc.w
	if before := w.snapshot(w.objects[r]); w.Delete(r) {
		w.record(Write{Ref: r, Verb: VerbDelete, Before: before})
		return w.wrote()
	}
	return nil
}

func (wc worldCluster) UpdateStatus(r Ref, status map[string]any) error {
	w := wc.w
	before := w.snapshot(w.objects[r])
	if w.setStatus(r, status) {
		w.record(Write{Ref: r, Verb: VerbStatus, Before: before, After: w.objects[r]})
	}
	return nil
}
