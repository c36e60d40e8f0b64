package datapath

import (
	"sync"
	"time"

	"github.com/c5c3/glance-hooks/test/services"
)

// connectionSampler counts a database user's connections a few times a
// second while a load runs and keeps the most it saw: what the user's
// max_user_connections has to allow. A pool's idle connections stay open
// and are counted; a burst between two samples is missed, so the peak is a
// lower bound.
type connectionSampler struct {
	stop    chan struct{}
	done    chan struct{}
	once    sync.Once
	peak    int
	samples int
	err     error
}

// sampleConnections starts counting user's connections on db every period.
func sampleConnections(db *services.MariaDB, user string, period time.Duration) *connectionSampler {
	s := &connectionSampler{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		tick := time.NewTicker(period)
		defer tick.Stop()
		for {
			n, err := db.UserConnections(user)
			if err != nil {
				s.err = err
				return
			}
			s.samples++
			s.peak = max(s.peak, n)
			select {
			case <-s.stop:
				return
			case <-tick.C:
			}
		}
	}()
	return s
}

// finish stops the sampling (again is harmless) and returns the peak, the
// number of samples and the first error.
func (s *connectionSampler) finish() (peak, samples int, err error) {
	s.once.Do(func() { close(s.stop) })
	<-s.done
	return s.peak, s.samples, s.err
}
