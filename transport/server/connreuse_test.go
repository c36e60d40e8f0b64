package server

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/test/testcert"
)

// roundRobin is a TCP balancer on loopback that sends each new connection to
// the next backend, as kube-proxy spreads a Service's connections: it never
// looks at the requests a connection carries.
func roundRobin(t *testing.T, backends ...string) (addr string, dials *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	dials = new(atomic.Int64)
	var wg sync.WaitGroup
	t.Cleanup(func() {
		ln.Close()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			n := dials.Add(1)
			out, err := net.Dial("tcp", backends[int(n-1)%len(backends)])
			if err != nil {
				in.Close()
				continue
			}
			wg.Add(2)
			pipe := func(dst, src net.Conn) {
				defer wg.Done()
				_, _ = io.Copy(dst, src)
				// Half a closed pair closes the whole: the client sees the
				// server's close, and the server the client's.
				dst.Close()
				src.Close()
			}
			go pipe(out, in)
			go pipe(in, out)
		}
	}()
	return ln.Addr().String(), dials
}

// walk sends n syncs in a row from one keep-alive client through addr.
func walk(t *testing.T, addr string, n int) {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}, Timeout: 10 * time.Second}
	defer client.CloseIdleConnections()
	body := []byte(`{"parent":{"metadata":{"name":"g"}},"children":{}}`)
	for i := 0; i < n; i++ {
		resp, err := client.Post("http://"+addr+"/sync/x", "application/json", bytes.NewReader(body))
		require.NoError(t, err, "request %d", i)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode, "request %d", i)
	}
}

// Two replicas behind a connection balancer share a keep-alive client's
// requests only if the server ends its connections now and then: the
// balancer places connections, not requests.
func TestReplicasShareOneKeepAliveClient(t *testing.T) {
	const requests = 1000
	cases := map[string]struct {
		maxRequests int
		maxAge      time.Duration
		shared      bool
	}{
		"default bounds":  {shared: true},
		"age bound alone": {maxRequests: -1, maxAge: time.Millisecond, shared: true},
		// The behaviour before the bound: one connection, one replica.
		"no bound": {maxRequests: -1, maxAge: -1, shared: false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var served [2]atomic.Int64
			replica := func(i int) string {
				answer := func(*metacontroller.SyncRequest, time.Time) (*metacontroller.SyncResponse, error) {
					served[i].Add(1)
					return &metacontroller.SyncResponse{Status: map[string]string{}, Children: []any{}}, nil
				}
				return serveLoopback(t, Config{Routes: []Route{{Path: "/sync/x", Sync: answer}}, MaxConnRequests: tc.maxRequests, MaxConnAge: tc.maxAge})
			}
			lb, dials := roundRobin(t, replica(0), replica(1))
			walk(t, lb, requests)
			a, b := served[0].Load(), served[1].Load()
			require.Equal(t, int64(requests), a+b)
			t.Logf("replica shares %d / %d over %d connections", a, b, dials.Load())
			least := min(a, b)
			if tc.shared {
				assert.GreaterOrEqual(t, least, int64(requests*35/100), "each replica serves at least 35%%: %d / %d", a, b)
			} else {
				assert.Zero(t, least, "one connection pins one replica: %d / %d", a, b)
				assert.Equal(t, int64(1), dials.Load())
			}
		})
	}
}

// The bounds count every request of a connection and close it on the last.
func TestLimitConnUseClosesOnTheNthAnswer(t *testing.T) {
	addr := serveLoopback(t, Config{MaxConnRequests: 3, MaxConnAge: -1})
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer conn.Close()
	br := bufio.NewReader(conn)
	var got []bool
	for i := 0; i < 3; i++ {
		_, err := fmt.Fprintf(conn, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
		require.NoError(t, err)
		resp, err := http.ReadResponse(br, nil)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		// ReadResponse takes "Connection: close" out of the header into Close.
		got = append(got, resp.Close)
	}
	assert.Equal(t, []bool{false, false, true}, got)
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(2*time.Second)))
	n, err := conn.Read(make([]byte, 1))
	assert.Zero(t, n)
	assert.ErrorIs(t, err, io.EOF, "the server closed the connection after the third answer")
}

// BenchmarkKeepAliveTLS is the cost of the bound: a walk of syncs from one
// keep-alive TLS client, with connections ended every 100 requests (the
// default) and never. The difference per request is the extra handshakes'
// share, client and server together.
func BenchmarkKeepAliveTLS(b *testing.B) {
	for _, bench := range []struct {
		name        string
		maxRequests int
	}{{"every100", DefaultMaxConnRequests}, {"unbounded", -1}} {
		b.Run(bench.name, func(b *testing.B) {
			pair, err := testcert.New("bench", "127.0.0.1")
			require.NoError(b, err)
			cert, err := pair.TLSCertificate()
			require.NoError(b, err)
			answer := func(*metacontroller.SyncRequest, time.Time) (*metacontroller.SyncResponse, error) {
				return &metacontroller.SyncResponse{Status: map[string]string{}, Children: []any{}}, nil
			}
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			require.NoError(b, err)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			cfg := Config{Logger: slog.New(slog.DiscardHandler), Routes: []Route{{Path: "/sync/x", Sync: answer}}, MaxConnRequests: bench.maxRequests, MaxConnAge: -1}
			go func() {
				done <- ServeListener(ctx, New(cfg), ln, Stop{Grace: time.Second}, &tls.Config{Certificates: []tls.Certificate{cert}})
			}()
			defer func() { cancel(); <-done }()
			client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pair.Pool()}, MaxIdleConnsPerHost: 1}}
			defer client.CloseIdleConnections()
			body := []byte(`{"parent":{"metadata":{"name":"g"}},"children":{}}`)
			url := "https://" + ln.Addr().String() + "/sync/x"
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				resp, err := client.Post(url, "application/json", bytes.NewReader(body))
				require.NoError(b, err)
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
	}
}
