package server

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/hooks/metacontroller"
)

// TestGracefulShutdownFinishesInFlightRequests cancels the server while a
// request is being answered: the request completes and Serve returns cleanly.
func TestGracefulShutdownFinishesInFlightRequests(t *testing.T) {
	started := make(chan struct{})
	slow := Route{Path: "/sync/slow", Sync: func(*metacontroller.SyncRequest, time.Time) (*metacontroller.SyncResponse, error) {
		close(started)
		time.Sleep(300 * time.Millisecond)
		return &metacontroller.SyncResponse{Status: map[string]string{"done": "yes"}, Children: []any{}}, nil
	}}
	e := New(Config{Logger: slog.New(slog.DiscardHandler), Routes: []Route{slow}})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())

	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- Serve(ctx, e, addr, 5*time.Second, nil) }()
	require.Eventually(t, func() bool {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
		}
		return err == nil
	}, 5*time.Second, 10*time.Millisecond)

	answered := make(chan string, 1)
	go func() {
		resp, err := http.Post("http://"+addr+"/sync/slow", "application/json", strings.NewReader(`{"parent":{}}`))
		if err != nil {
			answered <- "error: " + err.Error()
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		answered <- resp.Status + " " + string(b)
	}()
	<-started
	cancel()
	select {
	case got := <-answered:
		assert.Contains(t, got, "200 OK")
		assert.Contains(t, got, `"done":"yes"`)
	case <-time.After(5 * time.Second):
		t.Fatal("the in-flight request did not finish")
	}
	select {
	case err := <-served:
		assert.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return after shutdown")
	}
	_, err = net.DialTimeout("tcp", addr, time.Second)
	assert.Error(t, err, "the server stopped listening")
}
