package server

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
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
// the body it still owes, and its connection is closed: net/http would
// otherwise read up to 256 KiB of that body before answering, and a client
// that announced a body and sent none had no answer for 30 s.
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
	open := serveLoopback(t, Config{MaxBodyBytes: 200000, Routes: routes})
	token := serveLoopback(t, Config{MaxBodyBytes: 200000, Routes: routes, HookToken: tok})

	cases := map[string]struct {
		addr, path, headers string
		length              int
		want                string
	}{
		"too large":         {addr: open, path: "/sync/x", length: 200001, want: "413"},
		"no token":          {addr: token, path: "/sync/x", length: 1000, want: "401"},
		"a wrong token":     {addr: token, path: "/sync/x", headers: "Authorization: Bearer other\r\n", length: 200000, want: "401"},
		"a hook, not JSON":  {addr: open, path: "/sync/x", headers: "Content-Type: text/plain\r\n", length: 1000, want: "415"},
		"validate, a form":  {addr: open, path: "/validate", headers: "Content-Type: application/x-www-form-urlencoded\r\n", length: 1000, want: "415"},
		"too large, token":  {addr: token, path: "/sync/x", headers: "Authorization: Bearer s3cret\r\n", length: 200001, want: "413"},
		"not JSON, token":   {addr: token, path: "/sync/x", headers: "Authorization: Bearer s3cret\r\nContent-Type: text/yaml\r\n", length: 5000, want: "415"},
		"validate, too big": {addr: token, path: "/validate", length: 300000, want: "413"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			conn, err := net.Dial("tcp", tc.addr)
			require.NoError(t, err)
			defer conn.Close()
			_, err = fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: hooks\r\n%sContent-Length: %d\r\n\r\n", tc.path, tc.headers, tc.length)
			require.NoError(t, err)
			start := time.Now()
			require.NoError(t, conn.SetReadDeadline(start.Add(time.Second)))
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			require.NoError(t, err, "no answer within 1 s while the body was owed")
			_, err = io.ReadAll(resp.Body)
			require.NoError(t, err, "the answer is complete and the connection then closed")
			resp.Body.Close()
			assert.Equal(t, tc.want, resp.Status[:3])
			assert.True(t, resp.Close, "the answer says Connection: close")
			t.Logf("%s answered in %s", resp.Status, time.Since(start).Round(time.Millisecond))
		})
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
