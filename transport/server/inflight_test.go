package server

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tryAcquire acquires in the background; in is closed once admitted.
func tryAcquire(s *inFlight, size int64) (release func(), in chan struct{}) {
	in = make(chan struct{})
	var rel func()
	done := make(chan struct{})
	go func() {
		r, err := s.acquire(context.Background(), size)
		if err == nil {
			rel = r
			close(in)
		}
		close(done)
	}()
	return func() { <-done; rel() }, in
}

// isIn waits for the request to be admitted (a few seconds at most).
func isIn(in chan struct{}) bool {
	select {
	case <-in:
		return true
	case <-time.After(5 * time.Second):
		return false
	}
}

// waits checks the request is still waiting a moment later.
func waits(in chan struct{}) bool {
	select {
	case <-in:
		return false
	case <-time.After(50 * time.Millisecond):
		return true
	}
}

func TestInFlightWeighsBodies(t *testing.T) {
	s := newInFlight(10, 5) // every request weighs at least 2
	relA, inA := tryAcquire(s, 6)
	require.True(t, isIn(inA))
	relB, inB := tryAcquire(s, 6)
	assert.True(t, waits(inB), "6 + 6 is more than 10")
	relC, inC := tryAcquire(s, 1)
	assert.True(t, waits(inC), "a small request does not pass a waiting large one")
	relA()
	require.True(t, isIn(inB))
	require.True(t, isIn(inC), "6 + 2 fit")
	relB()
	relC()

	// Small requests weigh capacity/count: at most count of them at once.
	var rels []func()
	for range 5 {
		rel, in := tryAcquire(s, 1)
		require.True(t, isIn(in))
		rels = append(rels, rel)
	}
	relX, inX := tryAcquire(s, 1)
	assert.True(t, waits(inX), "a sixth small request waits")
	rels[0]()
	require.True(t, isIn(inX))
	for _, r := range rels[1:] {
		r()
	}
	relX()

	// One larger than the whole budget runs, alone.
	relBig, inBig := tryAcquire(s, 100)
	require.True(t, isIn(inBig))
	relD, inD := tryAcquire(s, 1)
	assert.True(t, waits(inD))
	relBig()
	require.True(t, isIn(inD))
	relD()
	assert.Zero(t, s.used)
}

func TestInFlightWaiterGivesUp(t *testing.T) {
	s := newInFlight(10, 1)
	relA, err := s.acquire(context.Background(), 1)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	gaveUp := make(chan error, 1)
	go func() {
		_, err := s.acquire(ctx, 1)
		gaveUp <- err
	}()
	relC, inC := tryAcquire(s, 1)
	time.Sleep(20 * time.Millisecond)
	cancel()
	err = <-gaveUp
	require.Error(t, err)
	assert.Contains(t, err.Error(), "cancelled while it waited")
	assert.True(t, waits(inC))
	relA()
	require.True(t, isIn(inC), "the next waiter gets the room")
	relC()
	assert.Zero(t, s.used)
	assert.Zero(t, s.waiters.Len())
}
