package server

import (
	"context"
	"crypto/tls"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/internal/buildinfo"
	"github.com/c5c3/glance-hooks/test/testcert"
	"github.com/c5c3/glance-hooks/test/testlog"
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
	assert.Equal(t, float64(failures), value(gather(t, m), MetricServerErrors, map[string]string{"class": "tls_handshake"}))
	assert.Equal(t, serverErrorLogBurst, strings.Count(logs.String(), `"msg":"TLS handshake failed"`), "a burst of lines a window, no more")
}

// Connections that complete the TLS handshake and then break HTTP/2 are
// throttled the same way: 2,000 bad prefaces make a handful of lines and
// are all counted; so are connections whose first frame breaks the
// protocol, in a budget of their own.
func TestHTTP2ErrorsRateLimited(t *testing.T) {
	const badPrefaces, badFrames = 2000, 40
	var logs testlog.Buffer
	m := NewMetrics(buildinfo.Get())
	pair := newPair(t, "a")
	addr := startTLS(t, Config{Logger: slog.New(slog.NewJSONHandler(&logs, nil)), Routes: DefaultRoutes(), Metrics: m}, pair, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()

	preface := []byte("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
	// A DATA frame on stream 0 where the client's SETTINGS must come first:
	// PROTOCOL_ERROR.
	dataOnZero := []byte{0, 0, 1, 0, 0, 0, 0, 0, 0, 'x'}
	bogus := []byte("XRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
	sent := sendH2(ctx, t, addr, pair, badPrefaces, 16, bogus)
	sent += sendH2(ctx, t, addr, pair, badFrames, 16, append(append([]byte{}, preface...), dataOnZero...))
	require.NoError(t, ctx.Err(), "every connection was made in time")
	require.Equal(t, badPrefaces+badFrames, sent)

	counted := func(class string) float64 {
		return value(gather(t, m), MetricServerErrors, map[string]string{"class": class})
	}
	require.Eventually(t, func() bool {
		return counted("http2_preface") == badPrefaces && counted("http2_protocol") == badFrames
	}, 10*time.Second, 20*time.Millisecond, "every error is counted: %v prefaces, %v protocol errors", counted("http2_preface"), counted("http2_protocol"))
	lines := strings.Count(logs.String(), "\n")
	assert.Equal(t, serverErrorLogBurst, strings.Count(logs.String(), `"class":"http2_preface"`), "a burst of preface lines a window")
	assert.Equal(t, serverErrorLogBurst, strings.Count(logs.String(), `"class":"http2_protocol"`), "and of protocol errors")
	assert.LessOrEqual(t, lines, 2*serverErrorLogBurst, "%d connections, %d log lines", badPrefaces+badFrames, lines)
	assert.Contains(t, logs.String(), "PROTOCOL_ERROR")
	t.Logf("%d bad connections, %d log lines", badPrefaces+badFrames, lines)
}

// sendH2 opens n TLS connections to addr that negotiate HTTP/2, workers at
// a time, each sending first and reading until the server closes it (at
// most 5 s); it returns how many it made before ctx ended.
func sendH2(ctx context.Context, t *testing.T, addr string, pair testcert.Pair, n, workers int, first []byte) int {
	t.Helper()
	jobs := make(chan struct{})
	var mu sync.Mutex
	made := 0
	var wg sync.WaitGroup
	cfg := &tls.Config{RootCAs: pair.Pool(), ServerName: "127.0.0.1", NextProtos: []string{"h2"}, ClientSessionCache: tls.NewLRUClientSessionCache(workers)}
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range jobs {
				d := tls.Dialer{Config: cfg}
				conn, err := d.DialContext(ctx, "tcp", addr)
				if err != nil {
					continue
				}
				_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
				_, _ = conn.Write(first)
				_, _ = io.Copy(io.Discard, conn)
				conn.Close()
				mu.Lock()
				made++
				mu.Unlock()
			}
		}()
	}
	for i := 0; i < n && ctx.Err() == nil; i++ {
		select {
		case jobs <- struct{}{}:
		case <-ctx.Done():
		}
	}
	close(jobs)
	wg.Wait()
	return made
}

// Once a window is over, the lines it did not log are counted in one line
// per class; each class has a budget of its own.
func TestServerErrorLogWindowSummarizes(t *testing.T) {
	var logs testlog.Buffer
	now := time.Unix(0, 0)
	w := &serverErrorWriter{log: slog.New(slog.NewJSONHandler(&logs, nil)), now: func() time.Time { return now }}
	for i := 0; i < serverErrorLogBurst+5; i++ {
		_, _ = w.Write([]byte("http: TLS handshake error from 127.0.0.1:1: EOF\n"))
	}
	_, _ = w.Write([]byte("http2: server connection error from 127.0.0.1:1: connection error: PROTOCOL_ERROR\n"))
	now = now.Add(serverErrorLogWindow)
	_, _ = w.Write([]byte("http: TLS handshake error from 127.0.0.1:1: EOF\n"))
	assert.Equal(t, serverErrorLogBurst+1, strings.Count(logs.String(), `"msg":"TLS handshake failed"`))
	assert.Contains(t, logs.String(), `"msg":"server errors not logged","class":"tls_handshake","count":5`)
	assert.Equal(t, 1, strings.Count(logs.String(), `"class":"http2_protocol"`), "another class's first line is logged")
}

func TestClassifyServerErrors(t *testing.T) {
	cases := map[string]struct{ reason, line, class string }{
		"handshake":   {"a client speaking no TLS", "http: TLS handshake error from 10.0.0.1:5: tls: first record does not look like a TLS handshake", "tls_handshake"},
		"preface":     {"TLS, then no HTTP/2 preface", `http2: server: error reading preface from client 10.0.0.1:5: bogus greeting "XRI"`, "http2_preface"},
		"protocol":    {"a frame out of place", "http2: server connection error from 10.0.0.1:5: connection error: PROTOCOL_ERROR", "http2_protocol"},
		"settings":    {"no SETTINGS in time", "timeout waiting for SETTINGS frames from 10.0.0.1:5", "http2_protocol"},
		"h2 panic":    {"a panic outside the handler", "http2: panic serving 10.0.0.1:5: boom", "panic"},
		"h1 panic":    {"the same over HTTP/1", "http: panic serving 10.0.0.1:5: boom", "panic"},
		"accept":      {"out of file descriptors", "http: Accept error: accept tcp: too many open files; retrying in 5ms", "accept"},
		"superfluous": {"a handler bug", "http: superfluous response.WriteHeader call from x (y.go:1)", "other"},
	}
	for name, tc := range cases {
		assert.Equal(t, tc.class, classify([]byte(tc.line)).name, "%s: %s", name, tc.reason)
	}
}
