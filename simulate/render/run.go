package render

import (
	"errors"
	"time"

	"github.com/c5c3/glance-hooks/simulate/chain"
)

// Epoch is the clock every render starts at, so condition times and
// creation times are the same on every run. Each round advances it a second.
var Epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// DefaultMaxRounds is the round limit when Options leaves it unset. The
// guide's inputs converge in a handful of rounds.
const DefaultMaxRounds = 20

// Options of a render.
type Options struct {
	// MaxRounds bounds the rounds of every run; 0 means DefaultMaxRounds.
	MaxRounds int
	// Validate admits each input object; nil means Admission, the validate hook.
	Validate Validator
	// Now is the starting clock; zero means Epoch.
	Now time.Time
}

func (o Options) maxRounds() int {
	if o.MaxRounds <= 0 {
		return DefaultMaxRounds
	}
	return o.MaxRounds
}

func (o Options) validator() Validator {
	if o.Validate == nil {
		return Admission
	}
	return o.Validate
}

// State is an in-memory cluster after a render.
type State struct {
	world  *chain.World
	inputs map[chain.Ref]bool
	// Rounds the last run took, and whether it converged.
	Rounds    int
	Converged bool
}

// Objects returns every object, sorted by kind, namespace and name.
func (s *State) Objects() []chain.Object { return s.world.Objects() }

// Render applies docs in order to an empty cluster, each admitted first as
// the validate hook would, then runs the hooks until nothing changes. On a
// refusal nothing is run. When the round limit is hit, the state reached is
// returned with a *NotConvergedError.
func Render(docs []Doc, opts Options) (*State, error) {
	now := opts.Now
	if now.IsZero() {
		now = Epoch
	}
	s := &State{world: chain.NewWorld(now), inputs: map[chain.Ref]bool{}}
	if err := s.apply(docs, opts); err != nil {
		return nil, err
	}
	return s, s.run(opts)
}

// Update is what applying docs to the rendered cluster would do: input
// objects of earlier renders that docs no longer hold are deleted first
// (with everything they own, as the garbage collector would), then docs are
// admitted and applied in order (creates and updates), then the hooks run
// until nothing changes.
func (s *State) Update(docs []Doc, opts Options) error {
	keep := map[chain.Ref]bool{}
	for _, d := range docs {
		keep[d.Ref()] = true
	}
	for _, r := range chain.SortedRefs(s.inputs) {
		if !keep[r] {
			s.world.Delete(r)
			delete(s.inputs, r)
		}
	}
	if err := s.apply(docs, opts); err != nil {
		return err
	}
	return s.run(opts)
}

// SetStatus writes an object's status as the controller that owns that
// status would (a Gateway controller accepting an HTTPRoute, say), then
// runs the hooks until nothing changes. It reports false, and runs
// nothing, when there is no such object.
func (s *State) SetStatus(r chain.Ref, status any, opts Options) (bool, error) {
	if !s.world.SetStatus(r, status) {
		return false, nil
	}
	return true, s.run(opts)
}

func (s *State) apply(docs []Doc, opts Options) error {
	validate := opts.validator()
	for _, d := range docs {
		r := d.Ref()
		old, _ := s.world.Get(r)
		if err := validate(d.Object, old, s.storedIn(r.Namespace)); err != nil {
			return &RefusedError{Source: d.Source, Object: refString(r), Message: err.Error()}
		}
		if err := s.world.Apply(d.Object); err != nil {
			// What the API server itself refuses, e.g. new data in an immutable Secret.
			return &RefusedError{Source: d.Source, Object: refString(r), Message: err.Error()}
		}
		s.inputs[r] = true
	}
	return nil
}

func (s *State) run(opts Options) error {
	res, err := s.world.Run(chain.Controllers(), opts.maxRounds())
	s.Rounds, s.Converged = res.Rounds, res.Converged
	if err != nil {
		return &HookError{Err: err}
	}
	if !res.Converged {
		return &NotConvergedError{Rounds: res.Rounds}
	}
	return nil
}

// storedIn are the objects of a namespace the webhook can read there: the
// kinds its lister reads (see lister). Only those: copying every object of
// the namespace for each object applied made a render quadratic in its
// input (2,000 ConfigMaps took 21 s, 4,000 took 138 s).
func (s *State) storedIn(ns string) []chain.Object {
	return s.world.ObjectsIn(ns, webhookReads...)
}

// IsNotConverged reports whether err is a run that hit the round limit;
// its state is still worth showing.
func IsNotConverged(err error) bool {
	var nc *NotConvergedError
	return errors.As(err, &nc)
}
