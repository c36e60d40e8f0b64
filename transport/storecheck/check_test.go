package storecheck

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func answering(t *testing.T, status int, delay time.Duration) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		time.Sleep(delay)
		w.WriteHeader(status)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func closedPort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}

// Each way an endpoint can fail to answer is told apart from one that
// answers, in words that name the fault.
func TestCheckTellsAnswersFromFaults(t *testing.T) {
	cases := map[string]struct {
		reason    string
		endpoint  func(t *testing.T) string
		reachable bool
		detail    string
	}{
		"S3 refuses the unsigned request": {"a 403 is a server that answers",
			func(t *testing.T) string { return answering(t, http.StatusForbidden, 0) }, true, "HTTP 403"},
		"a proxy without its servers": {"a 503 is a store that is down behind a proxy",
			func(t *testing.T) string { return answering(t, http.StatusServiceUnavailable, 0) }, false, "it answers 503"},
		"nothing listens": {"a stopped server refuses the connection",
			closedPort, false, "connection refused"},
		"no answer in time": {"a server that hangs is down once the timeout passes",
			func(t *testing.T) string { return answering(t, http.StatusOK, time.Second) }, false, "no answer within 200ms"},
		"not a URL": {"a host the check cannot use says so",
			func(*testing.T) string { return "http://[::1" }, false, "not a URL"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := New(200*time.Millisecond, 0).Check(tc.endpoint(t), t0)
			if r.Reachable != tc.reachable || !strings.Contains(r.Detail, tc.detail) {
				t.Errorf("%s: got %+v, want reachable=%v and a detail with %q", tc.reason, r, tc.reachable, tc.detail)
			}
		})
	}
}

// A verdict is reused within the TTL of the sync clock and checked again
// after it, so a store's return is seen by the first sync past the TTL.
func TestCheckCachesForTTL(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.WriteHeader(http.StatusForbidden)
	}))
	defer srv.Close()
	c := New(time.Second, 10*time.Second)
	cases := []struct {
		reason string
		at     time.Duration
		want   int32
	}{
		{"the first sync checks", 0, 1},
		{"a sync of the same moment reads the verdict", 0, 1},
		{"within the TTL too", 9 * time.Second, 1},
		{"past the TTL it checks again", 10 * time.Second, 2},
		{"a clock that went back checks again", 5 * time.Second, 3},
	}
	for _, tc := range cases {
		c.Check(srv.URL, t0.Add(tc.at))
		if got := hits.Load(); got != tc.want {
			t.Errorf("%s: %d checks, want %d", tc.reason, got, tc.want)
		}
	}
}

// The cache's key outlives the sync that asked: the hooks' transport reads
// the next large body into the same buffer, where the endpoint string was
// decoded from. The cache keeps a copy, so a verdict is still found under
// the endpoint after that buffer was overwritten.
func TestCacheKeyOutlivesTheRequestBody(t *testing.T) {
	var probes atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		probes.Add(1)
		w.WriteHeader(http.StatusForbidden)
	}))
	t.Cleanup(srv.Close)
	c := New(time.Second, time.Minute)
	body := []byte(srv.URL)
	// What a zero-copy decoder hands the hook: a string in the body's memory.
	endpoint := unsafe.String(&body[0], len(body))
	c.Check(endpoint, t0)
	for i := range body {
		body[i] = '#'
	}
	if r := c.Check(srv.URL, t0.Add(time.Second)); !r.Reachable {
		t.Fatalf("the cached verdict is lost: %+v", r)
	}
	if n := probes.Load(); n != 1 {
		t.Fatalf("the endpoint was probed %d times within the TTL, want once", n)
	}
}
