package server

import (
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/internal/buildinfo"
	"github.com/c5c3/glance-hooks/internal/testlog"
)

// A scan fails many handshakes: the log shows a few, the counter all.
func TestHandshakeFailuresRateLimited(t *testing.T) {
	const failures = 60
	var logs testlog.Buffer
	m := NewMetrics(buildinfo.Get())
	addr := startTLS(t, Config{Logger: slog.New(slog.NewJSONHandler(&logs, nil)), Routes: DefaultRoutes(), Metrics: m}, newPair(t, "a"), nil)
	for i := 0; i < failures; i++ {
		conn, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		_, _ = conn.Write([]byte("GET / HTTP/1.0\r\n\r\n")) // no TLS at all
		_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, _ = conn.Read(make([]byte, 512))
		conn.Close()
	}
	require.Eventually(t, func() bool {
		return value(gather(t, m), MetricTLSHandshakeErrors, nil) == failures
	}, 5*time.Second, 10*time.Millisecond, "the counter counts every failed handshake")
	assert.Equal(t, handshakeLogBurst, strings.Count(logs.String(), `"msg":"TLS handshake failed"`), "a burst of lines a window, no more")
}

// Once a window is over, the failures it did not log are counted in one line.
func TestHandshakeLogWindowSummarizes(t *testing.T) {
	var logs testlog.Buffer
	now := time.Unix(0, 0)
	w := &serverErrorWriter{log: slog.New(slog.NewJSONHandler(&logs, nil)), now: func() time.Time { return now }}
	for i := 0; i < handshakeLogBurst+5; i++ {
		_, _ = w.Write([]byte("http: TLS handshake error from 127.0.0.1:1: EOF\n"))
	}
	now = now.Add(handshakeLogWindow)
	_, _ = w.Write([]byte("http: TLS handshake error from 127.0.0.1:1: EOF\n"))
	assert.Equal(t, handshakeLogBurst+1, strings.Count(logs.String(), `"msg":"TLS handshake failed"`))
	assert.Contains(t, logs.String(), `"msg":"TLS handshake failures not logged","count":5`)
}
