package server

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/labstack/echo/v4"
)

// bodyHead is how much of a body with a Content-Length must arrive before
// the request waits for a turn: a client that has not sent that much holds
// a connection and what it sent, never a turn; one that has is sending its
// body, and the rest of it is read with the turn. A body that arrives whole
// while a thousand other requests wait would otherwise be held in memory,
// each of them: 64 requests of 4 MB are 270 MB of bodies waiting.
const bodyHead = 16 << 10

// body is one request body: its head read before the turn, the rest after.
type body struct {
	c       echo.Context
	r       io.Reader
	rc      *http.ResponseController
	limit   int64
	timeout time.Duration
	size    int64 // announced, or 0
	data    []byte
	bufs    *bodyBuffers // where the rest is read into; nil: new memory
	kept    []byte       // the buffer bufs gave, until done
}

// startBody checks the announced size (413 above limit), sets the body's
// deadline and reads its head: at most bodyHead bytes of a body with a
// Content-Length, all of one without.
func startBody(c echo.Context, limit int64, timeout time.Duration, bufs *bodyBuffers) (*body, error) {
	if c.Request().ContentLength > limit {
		return nil, newHTTPError(http.StatusRequestEntityTooLarge, "request body is larger than the %d-byte limit", limit)
	}
	b := &body{c: c, limit: limit, timeout: timeout, size: max(0, c.Request().ContentLength), bufs: bufs}
	if timeout > 0 {
		// The server's own read timeout covers headers and body together and
		// must stay long; this one is for the body of this request alone. A
		// recorder in tests has no deadline to set.
		b.rc = http.NewResponseController(c.Response())
		if b.rc.SetReadDeadline(time.Now().Add(timeout)) != nil {
			b.rc = nil
		}
	}
	b.r = http.MaxBytesReader(c.Response(), c.Request().Body, limit)
	var err error
	if b.size > 0 {
		b.data = make([]byte, min(b.size, bodyHead))
		_, err = io.ReadFull(b.r, b.data)
	} else {
		b.data, err = io.ReadAll(b.r)
	}
	if err != nil {
		return nil, b.fail(err)
	}
	return b, nil
}

// bytes is how many bytes the body is: announced or, without a
// Content-Length, read.
func (b *body) bytes() int64 { return max(b.size, int64(len(b.data))) }

// rest reads the rest of the body into one buffer of its size (a buffer
// grown by doubling would leave up to twice the body allocated; a large
// one comes from bodyBuffers and goes back with done) and returns the
// whole body, which it writes into tag (when not nil) piece by piece as
// it arrives.
//
// The rest is read with the turn, so it must keep coming (tailDeadline):
// a client that sends the head of its body and then stalls or trickles
// holds the turn for tailGrace, not for the body's whole timeout.
func (b *body) rest(tag *tagHash) ([]byte, error) {
	if b.size > int64(len(b.data)) {
		full := b.bufs.get(b.size)
		b.kept = full
		n := copy(full, b.data)
		tag.write(full[:n])
		start, head := time.Now(), n
		for n < len(full) {
			end := min(len(full), n+tailChunk)
			if tailPause != nil {
				tailPause()
			}
			due := tailDeadline(start, int64(end-head), b.timeout)
			if time.Now().After(due) && b.waiting() >= end-n {
				// This server is late, not the client: what the schedule
				// asked of the client by now is in the socket already. A
				// starved process (a busy node, a GC pause) read it too
				// late; the deadline passed would answer 408 without even
				// trying the read. The schedule starts over from here.
				start, head = time.Now(), n
				due = tailDeadline(start, int64(end-head), b.timeout)
			}
			if b.rc != nil {
				_ = b.rc.SetReadDeadline(due)
			}
			if _, err := io.ReadFull(b.r, full[n:end]); err != nil {
				return nil, b.fail(err)
			}
			tag.write(full[n:end])
			n = end
		}
		b.data = full
	} else {
		tag.write(b.data)
	}
	if b.rc != nil {
		_ = b.rc.SetReadDeadline(time.Time{})
	}
	if len(bytes.TrimSpace(b.data)) == 0 {
		return nil, newHTTPError(http.StatusBadRequest, "request body is empty")
	}
	return b.data, nil
}

// done gives the body's buffer back once the request is answered: nothing
// may read the body, or a string decoded from it, after this.
func (b *body) done() {
	if b.kept != nil {
		b.bufs.put(b.kept)
		b.kept, b.data = nil, nil
	}
}

// tailPause, when set (by tests), runs before each chunk of a body's rest
// is read: it stands for the server being kept off the CPU there.
var tailPause func()

// waiting is how many bytes the request's connection holds unread in its
// socket, 0 when that cannot be told (not a counted connection, not TCP,
// not Linux). For TLS it counts records, a little more than their content.
func (b *body) waiting() int {
	u, ok := b.c.Request().Context().Value(connUseKey{}).(*connUse)
	if !ok || u.conn == nil {
		return 0
	}
	return unreadBytes(u.conn)
}

// The rest of a body, read with a turn, must arrive at MinTailRate after a
// grace of tailGrace: by then Metacontroller's body is in the socket's
// buffers or on the wire at the network's speed (a cluster network moves
// 8 MiB in well under a second), while a client that sends its head at
// once and the rest a byte a second is cut after tailGrace, its turn free
// for the next request. The rate is checked every tailChunk bytes.
const (
	MinTailRate = 1 << 20 // bytes a second
	tailGrace   = 100 * time.Millisecond
	tailChunk   = 16 << 10
)

// tailDeadline is when the first n bytes of a body's rest, read from
// start, must have arrived: at MinTailRate after tailGrace, and never
// later than the body's timeout.
func tailDeadline(start time.Time, n int64, timeout time.Duration) time.Time {
	d := tailGrace + time.Duration(n)*time.Second/MinTailRate
	return start.Add(min(d, timeout))
}

// fail maps a read error to its answer: 413 over the limit, 408 past the
// deadline, 400 otherwise.
func (b *body) fail(err error) error {
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return newHTTPError(http.StatusRequestEntityTooLarge, "request body is larger than the %d-byte limit", b.limit)
	case errors.Is(err, os.ErrDeadlineExceeded):
		// The deadline stays passed and the connection is closed after the
		// answer (closesConnection).
		return newHTTPError(http.StatusRequestTimeout, "the request body did not arrive within %s (its rest at %d bytes a second once it had its turn)", b.timeout, MinTailRate)
	}
	return newHTTPError(http.StatusBadRequest, "reading the request body failed")
}
