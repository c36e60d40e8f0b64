package test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/test/testlog"
	"github.com/c5c3/glance-hooks/transport/server"
)

// slowServer serves the hooks on a free loopback port until the test ends;
// entered counts requests whose headers arrived.
func slowServer(t *testing.T, cfg server.Config) (addr string, entered *atomic.Int32) {
	t.Helper()
	cfg.Routes = server.DefaultRoutes()
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	e := server.New(cfg)
	entered = &atomic.Int32{}
	e.Pre(func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			entered.Add(1)
			return next(c)
		}
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- server.ServeListener(ctx, e, ln, server.Stop{Grace: time.Second}, nil) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return ln.Addr().String(), entered
}

// trickle opens a connection, sends a POST whose headers announce a large
// body, then one byte of it every interval until stop is closed. It
// reports on cut whether the server closed or answered meanwhile.
func trickle(t *testing.T, addr string, interval time.Duration, stop <-chan struct{}, cut *atomic.Int32) {
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer conn.Close()
	_, err = fmt.Fprintf(conn, "POST /sync/glance HTTP/1.1\r\nHost: hooks\r\nContent-Type: application/json\r\nContent-Length: 4000000\r\n\r\n{")
	require.NoError(t, err)
	for {
		select {
		case <-stop:
			return
		case <-time.After(interval):
		}
		_ = conn.SetReadDeadline(time.Now().Add(time.Millisecond))
		if n, _ := conn.Read(make([]byte, 1)); n > 0 {
			cut.Add(1) // the server answered before the body was complete
			return
		}
		if _, err := conn.Write([]byte(" ")); err != nil {
			cut.Add(1)
			return
		}
	}
}

// Clients that send their bodies a byte at a time hold a connection each,
// never an in-flight slot: with three times as many of them as there are
// slots, a complete /sync/glance request is answered while every one of
// them is still sending. (Were slots taken before the body is read, the
// tricklers would hold them all and the request would wait until the body
// deadline, here a minute, cut them off.)
func TestSlowBodiesDoNotStarveAValidRequest(t *testing.T) {
	const slots, tricklers = 2, 6
	addr, entered := slowServer(t, server.Config{MaxInFlight: slots, BodyReadTimeout: time.Minute})
	stop := make(chan struct{})
	var cut atomic.Int32
	finished := make(chan struct{}, tricklers)
	for range tricklers {
		go func() {
			defer func() { finished <- struct{}{} }()
			trickle(t, addr, 20*time.Millisecond, stop, &cut)
		}()
	}
	require.Eventually(t, func() bool { return entered.Load() == tricklers }, 10*time.Second, 5*time.Millisecond,
		"every trickling request reached the server")

	body, err := os.ReadFile("fixtures/sync-glance/recorded-metacontroller/request.json")
	require.NoError(t, err)
	client := &http.Client{Timeout: 30 * time.Second}
	start := time.Now()
	resp, err := client.Post("http://"+addr+"/sync/glance", "application/json", bytes.NewReader(body))
	elapsed := time.Since(start)
	require.NoError(t, err, "the valid request was not answered while the tricklers held the server")
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Zero(t, cut.Load(), "every trickler was still sending when the valid request was answered")
	close(stop)
	for range tricklers {
		<-finished
	}
	t.Logf("a valid /sync/glance (%d bytes) was answered in %s while %d clients trickled bodies into %d slots",
		len(body), elapsed.Round(time.Millisecond), tricklers, slots)
}

// A body that has not arrived by the body deadline is answered 408 and the
// connection closed; the log line says so and quotes nothing the client sent.
func TestSlowBodyIsCutAtTheDeadline(t *testing.T) {
	var logs testlog.Buffer
	addr, _ := slowServer(t, server.Config{BodyReadTimeout: 300 * time.Millisecond, Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer conn.Close()
	_, err = fmt.Fprintf(conn, "POST /sync/glance HTTP/1.1\r\nHost: hooks\r\nContent-Length: 100\r\n\r\n{\"parent\":")
	require.NoError(t, err)
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(10*time.Second)))
	status, err := bufio.NewReader(conn).ReadString('\n')
	require.NoError(t, err)
	assert.Equal(t, "HTTP/1.1 408 Request Timeout\r\n", status)
	require.Eventually(t, func() bool { return strings.Contains(logs.String(), `"status":408`) }, 5*time.Second, 10*time.Millisecond)
	assert.Contains(t, logs.String(), "the request body did not arrive within 300ms")
	assert.NotContains(t, logs.String(), "parent")
}

// fastHead is the client of a slow-tail attack: it announces a 100,000-byte
// body, sends its first 17,408 bytes at once (past the head a request waits
// for its turn with) and then a byte a second, reconnecting whenever the
// server answers or drops it, until stop is closed.
func fastHead(addr string, stop <-chan struct{}) {
	head := append([]byte(`{"parent":`), bytes.Repeat([]byte(" "), 17408-10)...)
	for {
		select {
		case <-stop:
			return
		default:
		}
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			time.Sleep(10 * time.Millisecond)
			continue
		}
		_, err = fmt.Fprintf(conn, "POST /sync/glance HTTP/1.1\r\nHost: hooks\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n%s", head)
		for err == nil {
			select {
			case <-stop:
				conn.Close()
				return
			case <-time.After(time.Second):
			}
			_, err = conn.Write([]byte(" "))
			if err == nil {
				// An answer (the 408) means the server is done with it.
				_ = conn.SetReadDeadline(time.Now().Add(time.Millisecond))
				if n, _ := conn.Read(make([]byte, 1)); n > 0 {
					err = io.EOF
				}
			}
		}
		conn.Close()
	}
}

// Sixteen clients that send the head of their bodies at once and the rest a
// byte a second, reconnecting when dropped, hold the turns only briefly:
// without a token to refuse them, every valid /sync/glance over 30 s is
// answered 200 within a second. (Holding a turn for the whole body timeout,
// they delayed valid requests by 3 to 8 s, and 64 of them starved them.)
func TestSlowTailsDoNotDelayValidRequests(t *testing.T) {
	if testing.Short() {
		t.Skip("watches a 30 s window")
	}
	const clients, window = 16, 30 * time.Second
	addr, _ := slowServer(t, server.Config{})
	stop := make(chan struct{})
	done := make(chan struct{}, clients)
	for range clients {
		go func() {
			defer func() { done <- struct{}{} }()
			fastHead(addr, stop)
		}()
	}
	defer func() {
		close(stop)
		for range clients {
			<-done
		}
	}()
	body, err := os.ReadFile("fixtures/sync-glance/recorded-metacontroller/request.json")
	require.NoError(t, err)
	client := &http.Client{Timeout: 10 * time.Second}
	time.Sleep(2 * time.Second) // every attacker is cycling
	var worst time.Duration
	requests := 0
	for end := time.Now().Add(window); time.Now().Before(end); requests++ {
		start := time.Now()
		resp, err := client.Post("http://"+addr+"/sync/glance", "application/json", bytes.NewReader(body))
		elapsed := time.Since(start)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
		worst = max(worst, elapsed)
		assert.Less(t, elapsed, time.Second, "request %d answered after %s", requests, elapsed)
		time.Sleep(250 * time.Millisecond)
	}
	t.Logf("%d valid /sync/glance requests under %d slow-tail clients: the slowest answered in %s", requests, clients, worst.Round(time.Millisecond))
}
