package server

import (
	"container/list"
	"context"
	"net/http"
	"sync"
)

// MemoryPerBodyByte is how many bytes of memory a request may need per byte
// of its body, at most: the body itself, the envelope's copy of every
// object, what a hook decodes, its answer, and the garbage collector's
// slack. Measured (docs/performance.md): requests of a few large objects
// need about 6 to 8, requests of hundreds of thousands of tiny objects up to
// about 12.
const MemoryPerBodyByte = 16

// ItemWeight is what one array item counts for, in body bytes, when a
// request is admitted: decoded, an item of a few bytes can take a Go value
// of hundreds (see MaxArrayItems).
const ItemWeight = 64

// requestWeight is what a request counts for against MaxInFlightBytes: its
// body and its array items, whichever way it needs memory.
func requestWeight(bodyBytes, arrayItems int) int64 {
	return int64(bodyBytes) + int64(arrayItems)*ItemWeight
}

// inFlight admits requests by the size of their bodies: the sum of the
// weights of the requests worked on stays within capacity. A request weighs
// its body's size, at least capacity/count (so no more than count run at
// once) and at most capacity (so the largest still runs, alone). Waiters are
// served in arrival order, so a large request is not passed over forever by
// small ones.
type inFlight struct {
	mu                        sync.Mutex
	capacity, used, minWeight int64
	waiters                   list.List // of *waiter
}

type waiter struct {
	weight int64
	ready  chan struct{}
}

func newInFlight(capacity int64, count int) *inFlight {
	return &inFlight{capacity: capacity, minWeight: max(1, capacity/int64(count))}
}

// weigh is what a request of the weight counts for: at least capacity/count,
// at most capacity.
func (s *inFlight) weigh(weight int64) int64 { return min(s.capacity, max(weight, s.minWeight)) }

// acquire waits until a request of the weight may be worked on, or until
// ctx is done (a 503).
func (s *inFlight) acquire(ctx context.Context, weight int64) (release func(), err error) {
	w := s.weigh(weight)
	release = func() { s.release(w) }
	s.mu.Lock()
	if s.waiters.Len() == 0 && s.used+w <= s.capacity {
		s.used += w
		s.mu.Unlock()
		return release, nil
	}
	me := &waiter{weight: w, ready: make(chan struct{})}
	elem := s.waiters.PushBack(me)
	s.mu.Unlock()
	select {
	case <-me.ready:
		return release, nil
	case <-ctx.Done():
		s.mu.Lock()
		select {
		case <-me.ready:
			// Admitted just as the client gave up: give the room back.
			s.used -= w
		default:
			s.waiters.Remove(elem)
		}
		s.admitLocked()
		s.mu.Unlock()
		return nil, newHTTPError(http.StatusServiceUnavailable, "the request was cancelled while it waited for its turn")
	}
}

// reweigh keeps the turn held (released by release) when the request's
// full weight counts no more than the weight it was admitted with;
// heavier, it gives the turn back and waits again for the whole weight.
// (Waiting while holding part of it could leave two requests each waiting
// for the other's part.) It returns the release of the turn now held, a
// no-op when the wait failed.
func (s *inFlight) reweigh(ctx context.Context, release func(), held, full int64) (func(), error) {
	if s.weigh(full) <= s.weigh(held) {
		return release, nil
	}
	release()
	next, err := s.acquire(ctx, full)
	if err != nil {
		return func() {}, err
	}
	return next, nil
}

func (s *inFlight) release(w int64) {
	s.mu.Lock()
	s.used -= w
	s.admitLocked()
	s.mu.Unlock()
}

// admitLocked lets waiters in, in order, while they fit.
func (s *inFlight) admitLocked() {
	for e := s.waiters.Front(); e != nil; e = s.waiters.Front() {
		w := e.Value.(*waiter)
		if s.used+w.weight > s.capacity {
			return
		}
		s.used += w.weight
		s.waiters.Remove(e)
		close(w.ready)
	}
}
