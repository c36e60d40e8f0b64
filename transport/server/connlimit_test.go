package server

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/internal/buildinfo"
	"github.com/c5c3/glance-hooks/test/testlog"
)

// httpConn is one client connection and its reader.
type httpConn struct {
	net.Conn
	r *bufio.Reader
}

// do sends one request and reads its answer, in 2 s at most.
func (c httpConn) do(t *testing.T, method, path string) *http.Response {
	t.Helper()
	require.NoError(t, c.SetDeadline(time.Now().Add(2*time.Second)))
	_, err := fmt.Fprintf(c, "%s %s HTTP/1.1\r\nHost: hooks\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}", method, path)
	require.NoError(t, err)
	resp, err := http.ReadResponse(c.r, nil)
	require.NoError(t, err)
	_, err = io.ReadAll(resp.Body)
	require.NoError(t, err)
	resp.Body.Close()
	return resp
}

// closedByServer reports whether the server ended c within d.
func (c httpConn) closedByServer(d time.Duration) bool {
	_ = c.SetReadDeadline(time.Now().Add(d))
	_, err := c.r.ReadByte()
	return err == io.EOF
}

// Past --max-conns a connection is answered 503 and closed, its probes
// still answered; past twice it, closed unanswered; a connection that goes
// makes room for the next.
func TestMaxConnsAnswers503PastTheLimit(t *testing.T) {
	const max = 2
	m := NewMetrics(buildinfo.Get())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	pair := newPair(t, "a")
	var logs testlog.Buffer
	cfg := Config{Logger: slog.New(slog.NewJSONHandler(&logs, nil)), Routes: DefaultRoutes(), Metrics: m}
	dial := tlsDialer(t, serveTLSOn(t, cfg, pair, nil, LimitConns(ln, max, m)), pair)
	open := func() httpConn { c := dial(); return httpConn{Conn: c, r: bufio.NewReader(c)} }

	within := []httpConn{open(), open()}
	for _, c := range within {
		defer c.Close()
		assert.Equal(t, http.StatusBadRequest, c.do(t, http.MethodPost, "/validate").StatusCode, "within the limit: the hook refuses {}")
	}

	over := open()
	defer over.Close()
	assert.Equal(t, http.StatusOK, over.do(t, http.MethodGet, "/healthz").StatusCode, "the probes are answered past the limit")
	resp := over.do(t, http.MethodPost, "/validate")
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, "past the limit")
	assert.Equal(t, "1", resp.Header.Get("Retry-After"))
	assert.True(t, resp.Close, "Connection: close")
	assert.True(t, over.closedByServer(time.Second), "and closed")
	// The client reads TLS's close_notify before the server's Close reaches
	// the count, so wait for the count before filling the margin.
	waitOpen(t, m, max)

	// Two connections past the limit that say nothing fill the margin; the
	// next is closed at once, and they are closed by the deadline of one
	// past the limit, not the server's 30 s.
	held := []httpConn{open(), open()}
	start := time.Now()
	_, err = tls.Dial("tcp", ln.Addr().String(), &tls.Config{RootCAs: pair.Pool(), ServerName: "127.0.0.1"})
	assert.Error(t, err, "past twice the limit: no handshake")
	for _, c := range held {
		assert.True(t, c.closedByServer(3*time.Second), "a silent connection past the limit is closed")
		c.Close()
	}
	assert.Less(t, time.Since(start), overLimitDeadline+time.Second)

	within[0].Close()
	waitOpen(t, m, 1)
	next := open()
	defer next.Close()
	assert.Equal(t, http.StatusBadRequest, next.do(t, http.MethodPost, "/validate").StatusCode, "a closed connection made room")

	all := gather(t, m)
	assert.Equal(t, 3.0, value(all, MetricConnsOverLimit, map[string]string{"action": "503"}), "the answered one and the two held")
	assert.Equal(t, 1.0, value(all, MetricConnsOverLimit, map[string]string{"action": "closed"}))
	assert.Equal(t, 1.0, value(all, MetricRequests, map[string]string{"route": "/healthz", "status_class": "2xx"}),
		"the 503s are not counted as requests")
	assert.Zero(t, value(all, MetricRequests, map[string]string{"route": "/validate", "status_class": "5xx"}))
	assert.NotContains(t, logs.String(), `"status":503`, "nor logged one by one")
	assert.Contains(t, logs.String(), `"status":400`, "where the requests within the limit are")
}

// waitOpen waits until the server counts n connections open.
func waitOpen(t *testing.T, m *Metrics, n int) {
	t.Helper()
	require.Eventually(t, func() bool { return value(gather(t, m), MetricConnsOpen, nil) == float64(n) }, 5*time.Second, 20*time.Millisecond,
		"the server saw the connections go; open: %v, want %d", value(gather(t, m), MetricConnsOpen, nil), n)
}

// A deadline net/http sets on a connection past the limit is never later
// than its own.
func TestLimitedConnClampsDeadlines(t *testing.T) {
	over := time.Unix(100, 0)
	cases := map[string]struct {
		reason    string
		over, set time.Time
		want      time.Time
	}{
		"within, none":  {"a connection within the limit keeps what is set", time.Time{}, time.Time{}, time.Time{}},
		"within, later": {"likewise", time.Time{}, time.Unix(500, 0), time.Unix(500, 0)},
		"over, none":    {"no deadline is the connection's own", over, time.Time{}, over},
		"over, later":   {"a later one is cut to it", over, time.Unix(500, 0), over},
		"over, earlier": {"an earlier one stays", over, time.Unix(50, 0), time.Unix(50, 0)},
	}
	for name, tc := range cases {
		c := &limitedConn{over: tc.over}
		assert.Equal(t, tc.want, c.clamp(tc.set), "%s: %s", name, tc.reason)
	}
}
