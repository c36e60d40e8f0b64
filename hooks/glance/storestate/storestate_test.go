package storestate

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestNext walks every state and every event. The moves the machine makes
// are listed one by one with their reason; every other pair is refused,
// for the reason its state gives, and leaves the state as it was.
func TestNext(t *testing.T) {
	type move struct {
		from State
		on   Event
	}
	moves := map[move]struct {
		reason string
		to     State
	}{
		{Pending, Fault}:             {"a fault found while evaluating leaves the store out", Skipped},
		{Pending, Awaited}:           {"a backend not reported yet or a store Secret not there yet keeps it on its way", Pending},
		{Pending, SecretOutdated}:    {"a store Secret of an older spec is on its way, and may be held", Outdated},
		{Pending, SecretCurrent}:     {"a store Secret of its spec renders its section", Rendered},
		{Outdated, RunningHeld}:      {"an outdated store keeps its running section while its Secret catches up", Held},
		{Rendered, CABundleConflict}: {"a rendered store the one process-wide bundle cannot serve is left out", CAConflict},
		{Held, CABundleConflict}:     {"a held store is rendered too, so the one bundle must serve it or it is left out", CAConflict},
		{Retiring, CABundleConflict}: {"a kept retiring store is rendered too, so the one bundle must serve it or it is left out", CAConflict},
		{Rendered, EgressAwaited}:    {"a rendered store the NetworkPolicy does not allow yet waits for it", Pending},
		{Pending, BackendGone}:       {"a running section no attached backend names starts lost", Lost},
		{Lost, DropListed}:           {"a retiring store spec.dropRetiredStores lists is dropped", Dropped},
		{Lost, RunningKept}:          {"a retiring store whose running section reads well is kept", Retiring},
	}
	// Why a state makes no other move than those listed.
	refused := map[State]string{
		Pending:    "a store on its way moves only as its evaluation or its backend's absence says",
		Outdated:   "an outdated store is evaluated already; only holding its running section moves it",
		Skipped:    "a fault is final for this sync: nothing renders a skipped store",
		CAConflict: "a store left out for its CA bundle is not rendered, so nothing else weighs it",
		Rendered:   "a rendered store is evaluated already; only its CA bundle or its egress hold it back",
		Held:       "a held store is decided already; only its CA bundle can still leave it out",
		Retiring:   "a kept retiring store is decided already; only its CA bundle can still leave it out",
		Dropped:    "a dropped store is final: its section is gone",
		Lost:       "a lost store is dropped or kept, nothing else",
	}
	if len(refused) != len(States) {
		t.Fatalf("every state needs a reason for the moves it refuses: %d of %d", len(refused), len(States))
	}
	for _, from := range States {
		for _, on := range Events {
			t.Run(from.String()+"/"+on.String(), func(t *testing.T) {
				type result struct {
					To State
					OK bool
				}
				want, reason := result{from, false}, refused[from]
				if m, ok := moves[move{from, on}]; ok {
					want, reason = result{m.to, true}, m.reason
				}
				to, ok := Next(from, on)
				if diff := cmp.Diff(want, result{to, ok}); diff != "" {
					t.Errorf("%s\n-want, +got:\n%s", reason, diff)
				}
			})
		}
	}
}

// TestReadings are what the rest of the hook reads off a state.
func TestReadings(t *testing.T) {
	cases := map[State]struct {
		reason            string
		rendered, waiting bool
	}{
		Pending:    {"a store on its way is not rendered and is waited for", false, true},
		Outdated:   {"an outdated store not held waits like a pending one", false, true},
		Skipped:    {"a fault is not waited for", false, false},
		CAConflict: {"a CA bundle conflict is not waited for", false, false},
		Rendered:   {"a rendered store's section is in the config", true, false},
		Held:       {"a held store renders its running section", true, false},
		Retiring:   {"a kept retiring store renders its running section", true, false},
		Dropped:    {"a dropped store's section is gone", false, false},
		Lost:       {"a lost store's section cannot be kept", false, false},
	}
	for _, s := range States {
		tc, ok := cases[s]
		if !ok {
			t.Fatalf("state %s has no case", s)
		}
		if got := [2]bool{s.Rendered(), s.Waiting()}; got != [2]bool{tc.rendered, tc.waiting} {
			t.Errorf("%s: %s: got rendered, waiting %v", s, tc.reason, got)
		}
	}
	if State(99).String() != "State(99)" || Event(-1).String() != "Event(-1)" {
		t.Error("an unknown state or event names its number")
	}
}
