//go:build linux

package server

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestABodyReadLateIsNotBlamedOnItsClient: a server kept off the CPU
// between two chunks of a body's rest (tailPause stands for that) finds the
// tail deadline passed. When the client's bytes are in the socket already,
// the server was late, not the client, and the body is read: on a busy
// machine this answered 408 to a client that had sent everything at once.
// A client that stalls is still cut, late server or not.
func TestABodyReadLateIsNotBlamedOnItsClient(t *testing.T) {
	cases := map[string]struct {
		reason string
		sent   int // bytes of the body the client sends (of size)
		want   int
	}{
		"sent whole":    {"everything is in the socket when the late server reads", size, http.StatusOK},
		"stalled after": {"the client stopped sending: the rate applies", bodyHead + tailChunk, http.StatusRequestTimeout},
	}
	var once sync.Once
	tailPause = func() { once.Do(func() { time.Sleep(4 * tailGrace) }) }
	t.Cleanup(func() { tailPause = nil })
	hold := newHoldRoute()
	close(hold.release)
	h := New(Config{Logger: slog.New(slog.DiscardHandler), Routes: []Route{hold.route()}})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- ServeListener(ctx, h, ln, Stop{}, nil) }()
	t.Cleanup(func() { cancel(); <-served })
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			once = sync.Once{}
			assert.Equal(t, tc.want, postRaw(t, ln.Addr().String(), tc.sent), tc.reason)
		})
	}
}

// size is the body postRaw announces: a rest of many chunks.
const size = 256 << 10

// postRaw sends a POST announcing a body of size bytes, sends sent of them
// at once and returns the status of the answer.
func postRaw(t *testing.T, addr string, sent int) int {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer conn.Close()
	payload := `{"parent":{},"x":"` + strings.Repeat("y", size-len(`{"parent":{},"x":""}`)) + `"}`
	require.Len(t, payload, size)
	_, err = fmt.Fprintf(conn, "POST /sync/hold HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", size, payload[:sent])
	require.NoError(t, err)
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(30*time.Second)))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err)
	resp.Body.Close()
	return resp.StatusCode
}
