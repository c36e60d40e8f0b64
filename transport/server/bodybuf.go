package server

import (
	"sync"
)

// bodyBuffers keeps the buffers of large request bodies between requests,
// so that the next large body is read into memory the heap already holds
// instead of a new allocation of its size. A Glance with a thousand
// backends sends about 5 MB a sync: allocated anew each time, each body
// was a fresh run of heap pages (the old one's pages, partly taken by
// small objects meanwhile, no longer fit it) and counted twice towards the
// collector's goal whenever a collection ran while it was read. Measured
// at 1000 backends and 64 clients (docs/performance.md): about 8 MiB less
// peak RSS and less CPU per request.
//
// A buffer comes back only after its request is answered, and a hook
// keeps nothing of a request once it has answered: decoded strings share
// the body's memory (rawjson copies nothing), so anything that outlives a
// request copies what it keeps (the store check's cache key, the log
// line's parent), and TestPooledBodiesLeaveNothingBehind serves every
// fixture with each buffer overwritten as it comes back.
//
// Small bodies are allocated as before: they cost little and fit the
// pages freed by the last ones. At most limit bytes of buffers are kept, by
// default one body of the largest size (MaxBodyBytes).
type bodyBuffers struct {
	mu    sync.Mutex
	free  [][]byte
	kept  int64 // the sum of the capacities of free
	limit int64
}

// pooledBodyMin is the smallest body read into a kept buffer; a variable
// so that tests can pool every body.
var pooledBodyMin int64 = 256 << 10

// scribbleOnPut, when set (by tests), overwrites every buffer as it comes
// back, so that a string still pointing into it shows.
var scribbleOnPut bool

func newBodyBuffers(limit int64) *bodyBuffers { return &bodyBuffers{limit: limit} }

// get is a buffer of length n (a new one from a nil bodyBuffers): the smallest kept one that holds n bytes,
// else a new one. Its bytes are whatever the last body left there: the
// caller overwrites all n.
func (p *bodyBuffers) get(n int64) []byte {
	if p == nil || n < pooledBodyMin {
		return make([]byte, n)
	}
	p.mu.Lock()
	best := -1
	for i, b := range p.free {
		if int64(cap(b)) >= n && (best < 0 || cap(b) < cap(p.free[best])) {
			best = i
		}
	}
	if best < 0 {
		p.mu.Unlock()
		return make([]byte, n)
	}
	buf := p.free[best]
	p.free[best] = p.free[len(p.free)-1]
	p.free[len(p.free)-1] = nil
	p.free = p.free[:len(p.free)-1]
	p.kept -= int64(cap(buf))
	p.mu.Unlock()
	return buf[:n]
}

// put keeps a buffer get gave, once nothing reads it any more, while the
// kept buffers stay within the limit; smaller kept buffers make room for
// it (see evictSmaller); otherwise the collector takes it.
func (p *bodyBuffers) put(buf []byte) {
	if p == nil || int64(cap(buf)) < pooledBodyMin {
		return
	}
	if scribbleOnPut {
		buf = buf[:cap(buf)]
		for i := range buf {
			buf[i] = '#'
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.evictSmaller(int64(cap(buf))) {
		return
	}
	p.free = append(p.free, buf)
	p.kept += int64(cap(buf))
}

// evictSmaller makes room within the limit for a buffer of size bytes by
// dropping kept buffers smaller than it, the smallest first, and reports
// whether it fits. A larger buffer holds every body a smaller one does;
// when the first large body kept was the smaller one (a 4.5 MB request),
// it took the room, and every larger body after it was read into new
// memory: the 4.85 MB requests of a 1000-backend Glance with every feature
// then allocated and zeroed their body on every request, 304s included,
// for as long as the process ran.
func (p *bodyBuffers) evictSmaller(size int64) bool {
	// Drop nothing unless dropping every smaller one makes the room: a
	// buffer that will not be kept must not cost the kept ones.
	smaller := int64(0)
	for _, b := range p.free {
		if int64(cap(b)) < size {
			smaller += int64(cap(b))
		}
	}
	if p.kept-smaller+size > p.limit {
		return false
	}
	for p.kept+size > p.limit {
		smallest := -1
		for i, b := range p.free {
			if int64(cap(b)) < size && (smallest < 0 || cap(b) < cap(p.free[smallest])) {
				smallest = i
			}
		}
		p.kept -= int64(cap(p.free[smallest]))
		p.free[smallest] = p.free[len(p.free)-1]
		p.free[len(p.free)-1] = nil
		p.free = p.free[:len(p.free)-1]
	}
	return true
}
