package server

import (
	"sync"

	"github.com/labstack/echo/v4"
)

// A body's rest is read into a buffer from bodyBuffers, not a new one: a
// new buffer of a body's size is zeroed before the body is copied over it
// and left to the garbage collector after the answer, which at 1000
// backends (4.6 MB) was a sixth of a sync's CPU and the whole allocation of
// a 304 (docs/performance.md). A body holds credentials (the store
// Secrets), so a buffer is cleared before it goes back: the pool holds
// zeros, never a request.
var bodyBuffers sync.Pool // *[]byte, every byte zero

// bodyBufferKey holds the request's pooled buffer (a *[]byte) until the
// request is done with it.
const bodyBufferKey = "body.buffer"

// takeBodyBuffer is a zeroed buffer of n bytes, held by the request until
// releaseBodyBuffer. The answer may refer to the body (decoded strings
// share its memory, see rawjson.Unmarshal) and the log line names the
// parent from it, so it is released after both: in logRequests, which
// runs around everything that reads it.
func takeBodyBuffer(c echo.Context, n int) []byte {
	p, _ := bodyBuffers.Get().(*[]byte)
	if p == nil || cap(*p) < n {
		if p != nil {
			bodyBuffers.Put(p)
		}
		buf := make([]byte, n)
		p = &buf
	}
	*p = (*p)[:n]
	c.Set(bodyBufferKey, p)
	return *p
}

// releaseBodyBuffer clears the request's pooled buffer, if it took one,
// and returns it to the pool.
func releaseBodyBuffer(c echo.Context) {
	p, ok := c.Get(bodyBufferKey).(*[]byte)
	if !ok {
		return
	}
	c.Set(bodyBufferKey, nil)
	clear(*p)
	bodyBuffers.Put(p)
}
