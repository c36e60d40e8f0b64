package server

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// countingReader counts what was read of it.
type countingReader struct {
	r    io.Reader
	read atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.read.Add(int64(n))
	return n, err
}

// TestWaitingRequestsHoldOnlyTheHead: a request that waits for a turn has
// read the head of its body and no more; with the turn it reads the rest
// and is answered.
func TestWaitingRequestsHoldOnlyTheHead(t *testing.T) {
	hold := newHoldRoute()
	h := New(Config{Logger: slog.New(slog.DiscardHandler), Routes: []Route{hold.route()}, MaxInFlight: 1})
	go func() { postHold(h, t.Context()) }()
	<-hold.entered // the only turn is taken

	payload := `{"parent":{},"x":"` + strings.Repeat("y", 1<<20) + `"}`
	body := &countingReader{r: strings.NewReader(payload)}
	req := httptest.NewRequest(http.MethodPost, "/sync/hold", body)
	req.ContentLength = int64(len(payload))
	done := make(chan int, 1)
	go func() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		done <- rec.Code
	}()
	require.Eventually(t, func() bool { return body.read.Load() >= bodyHead }, 10*time.Second, time.Millisecond)
	time.Sleep(50 * time.Millisecond)
	assert.EqualValues(t, bodyHead, body.read.Load(), "a waiting request reads its head and no more")
	close(hold.release)
	assert.Equal(t, http.StatusOK, <-done)
	assert.EqualValues(t, len(payload), body.read.Load())
}

// TestSmallBodyIsReadWhole: a body within the head arrives whole before the
// request waits.
func TestSmallBodyIsReadWhole(t *testing.T) {
	hold := newHoldRoute()
	close(hold.release)
	h := New(Config{Logger: slog.New(slog.DiscardHandler), Routes: []Route{hold.route()}})
	body := &countingReader{r: strings.NewReader(`{"parent":{}}`)}
	req := httptest.NewRequest(http.MethodPost, "/sync/hold", body)
	req.ContentLength = int64(len(`{"parent":{}}`))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	assert.Equal(t, http.StatusOK, rec.Code)
	assert.EqualValues(t, len(`{"parent":{}}`), body.read.Load())
}
