package test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
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

	"github.com/c5c3/glance-hooks/internal/testlog"
	"github.com/c5c3/glance-hooks/internal/transport/server"
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
