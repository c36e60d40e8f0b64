package server

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/test/testcert"
)

// serveLoopback runs a server of cfg on a free loopback port until the
// test ends.
func serveLoopback(t *testing.T, cfg Config) string {
	t.Helper()
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ServeListener(ctx, New(cfg), ln, Stop{Grace: time.Second}, nil) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return ln.Addr().String()
}

// A request refused before its body is read is answered at once, whatever
// the body it still owes, and its connection is closed at once: net/http
// would otherwise read up to 256 KiB of that body before answering, and a
// client that announced a body and sent none had no answer for 30 s; then,
// answered, one that owed less than 256 KiB held the connection open for
// the server's 30 s read timeout.
func TestEarlyRefusalsAnswerAtOnce(t *testing.T) {
	dir := t.TempDir()
	tokenPath := filepath.Join(dir, "token")
	writeToken(t, tokenPath, "s3cret")
	tok, err := NewTokenFile(tokenPath, nil)
	require.NoError(t, err)
	answer := func(*metacontroller.SyncRequest, time.Time) (*metacontroller.SyncResponse, error) {
		return &metacontroller.SyncResponse{Status: map[string]string{}, Children: []any{}}, nil
	}
	routes := []Route{{Path: "/sync/x", Sync: answer}, {Path: "/validate", Caller: APIServer, Body: Validate}}
	// A server that waited for the owed body would answer only when its
	// body read timeout (a minute here) or its 30 s read timeout ends; one
	// that refuses at once answers in milliseconds. The client waits
	// answerWithin, between the two with room for a loaded machine, so the
	// test tells the two apart without timing the answer.
	cfg := Config{MaxBodyBytes: 200000, Routes: routes, BodyReadTimeout: time.Minute}
	open := plainDialer(serveLoopback(t, cfg))
	cfg.HookToken = tok
	token := plainDialer(serveLoopback(t, cfg))
	pair := newPair(t, "a")
	cfg.Logger = slog.New(slog.DiscardHandler)
	tlsToken := tlsDialer(t, startTLS(t, cfg, pair, nil), pair)

	cases := map[string]struct {
		dial                func() net.Conn
		path, headers, body string
		length              int
		want                string
	}{
		"too large":            {dial: open, path: "/sync/x", length: 200001, want: "413"},
		"no token":             {dial: token, path: "/sync/x", length: 1000, want: "401"},
		"no token, TLS":        {dial: tlsToken, path: "/sync/x", length: 1000, want: "401"},
		"half a body, TLS":     {dial: tlsToken, path: "/sync/x", length: 1000, body: strings.Repeat("x", 500), want: "401"},
		"a wrong token":        {dial: token, path: "/sync/x", headers: "Authorization: Bearer other\r\n", length: 200000, want: "401"},
		"a wrong token, TLS":   {dial: tlsToken, path: "/sync/x", headers: "Authorization: Bearer other\r\n", length: 1000, want: "401"},
		"a hook, not JSON":     {dial: open, path: "/sync/x", headers: "Content-Type: text/plain\r\n", length: 1000, want: "415"},
		"validate, a form":     {dial: open, path: "/validate", headers: "Content-Type: application/x-www-form-urlencoded\r\n", length: 1000, want: "415"},
		"too large, token":     {dial: token, path: "/sync/x", headers: "Authorization: Bearer s3cret\r\n", length: 200001, want: "413"},
		"not JSON, token":      {dial: token, path: "/sync/x", headers: "Authorization: Bearer s3cret\r\nContent-Type: text/yaml\r\n", length: 5000, want: "415"},
		"validate, too big":    {dial: token, path: "/validate", length: 300000, want: "413"},
		"half a body, no auth": {dial: token, path: "/sync/x", length: 1000, body: strings.Repeat("x", 500), want: "401"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			conn := tc.dial()
			defer conn.Close()
			_, err = fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: hooks\r\n%sContent-Length: %d\r\n\r\n%s", tc.path, tc.headers, tc.length, tc.body)
			require.NoError(t, err)
			start := time.Now()
			require.NoError(t, conn.SetReadDeadline(start.Add(answerWithin)))
			r := bufio.NewReader(conn)
			resp, err := http.ReadResponse(r, nil)
			require.NoError(t, err, "no answer within %s while the body was owed", answerWithin)
			_, err = io.ReadAll(resp.Body)
			require.NoError(t, err, "the answer is complete")
			resp.Body.Close()
			assert.Equal(t, tc.want, resp.Status[:3])
			assert.True(t, resp.Close, "the answer says Connection: close")
			_, err = r.ReadByte()
			assert.ErrorIs(t, err, io.EOF, "the server closed the connection within %s of the request, while the body was owed", answerWithin)
			t.Logf("%s answered and closed in %s", resp.Status, time.Since(start).Round(time.Millisecond))
		})
	}
}

// answerWithin is how long TestEarlyRefusalsAnswerAtOnce's client waits for
// the answer and the close: far below the waits it rules out, far above
// what an early refusal takes even on a busy machine (2.5 s seen under a
// load average of 14).
const answerWithin = 10 * time.Second

func plainDialer(addr string) func() net.Conn {
	return func() net.Conn {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			panic(err)
		}
		return conn
	}
}

// tlsDialer speaks HTTP/1.1 over TLS to addr (HTTP/2 resets a refused
// request's stream and needs no help to close).
func tlsDialer(t *testing.T, addr string, pair testcert.Pair) func() net.Conn {
	return func() net.Conn {
		conn, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: pair.Pool(), ServerName: "127.0.0.1", NextProtos: []string{"http/1.1"}})
		require.NoError(t, err)
		return conn
	}
}

func TestCheckJSONMediaType(t *testing.T) {
	cases := map[string]struct {
		value string
		ok    bool
	}{
		"Metacontroller's and the API server's": {"application/json", true},
		"with a charset":                        {"application/json; charset=utf-8", true},
		"charset in capitals":                   {"Application/JSON; Charset=UTF-8", true},
		"another parameter":                     {"application/json; version=1", true},
		"none (hand-made requests)":             {"", true},
		"another charset":                       {"application/json; charset=latin1", false},
		"a form (curl -d)":                      {"application/x-www-form-urlencoded", false},
		"YAML":                                  {"application/yaml", false},
		"text":                                  {"text/plain", false},
		"not a media type":                      {"json;;", false},
		"a JSON suffix type":                    {"application/merge-patch+json", false},
	}
	for name, tc := range cases {
		err := checkJSONMediaType(tc.value)
		if tc.ok {
			assert.NoError(t, err, name)
			continue
		}
		var he *httpError
		if assert.ErrorAs(t, err, &he, name) {
			assert.Equal(t, http.StatusUnsupportedMediaType, he.code, name)
			assert.NotContains(t, he.msg, tc.value, "%s: what the client sent is not quoted", name)
		}
	}
}
