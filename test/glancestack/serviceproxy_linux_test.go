package glancestack

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// named is a server that answers its name.
func named(t *testing.T, name string) (addr string) {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, name) }))
	t.Cleanup(s.Close)
	return strings.TrimPrefix(s.URL, "http://")
}

// get answers the body, or the error.
func get(c *http.Client, url string) string {
	resp, err := c.Get(url)
	if err != nil {
		return "error"
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// answered is which servers answered n requests, each on a new connection.
func answered(p *ServiceProxy, n int) map[string]bool {
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 5 * time.Second}
	out := map[string]bool{}
	for range n {
		out[get(c, p.URL)] = true
	}
	return out
}

func TestServiceProxyFollowsItsEndpointsAsKubeProxyDoes(t *testing.T) {
	a, b := named(t, "a"), named(t, "b")
	const lag = 300 * time.Millisecond
	p := StartServiceProxy(t, lag, a)
	assert.Equal(t, map[string]bool{"a": true}, answered(p, 3), "one endpoint takes every connection")

	kept := &http.Client{Transport: &http.Transport{}, Timeout: 5 * time.Second}
	require.Equal(t, "a", get(kept, p.URL), "a connection kept alive goes to a")

	p.Join(b)
	assert.Equal(t, map[string]bool{"a": true, "b": true}, answered(p, 4), "connections go to each endpoint in turn")

	p.Leave(a)
	assert.Equal(t, map[string]bool{"a": true, "b": true}, answered(p, 4), "until the lag is over, a still gets new connections")
	time.Sleep(2 * lag)
	assert.Equal(t, map[string]bool{"b": true}, answered(p, 4), "after the lag, only b")
	assert.Equal(t, "a", get(kept, p.URL), "a connection open to a before it left stays with a, as conntrack keeps it")

	p.Leave(b)
	time.Sleep(2 * lag)
	assert.Equal(t, map[string]bool{"error": true}, answered(p, 2), "with no endpoint, a new connection is reset")
	assert.Equal(t, 2, p.Reset())
	served := p.Served()
	assert.Equal(t, 3+1+2+2, served[a], "connections to a: %v", served)
	assert.Equal(t, 2+2+4, served[b], "connections to b: %v", served)
}

func TestServiceProxyTellsWhereAConnectionWent(t *testing.T) {
	a, b := named(t, "a"), named(t, "b")
	p := StartServiceProxy(t, time.Second, a, b)
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 5 * time.Second}
	for range 4 {
		var from string
		trace := &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) { from = i.Conn.LocalAddr().String() }}
		req, err := http.NewRequestWithContext(httptrace.WithClientTrace(context.Background(), trace), http.MethodGet, p.URL, nil)
		require.NoError(t, err)
		resp, err := c.Do(req)
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		want := map[string]string{"a": a, "b": b}[string(body)]
		assert.Equal(t, want, p.Route(from), "the connection from %s was answered by %s", from, body)
	}
	assert.Empty(t, p.Route("127.0.0.1:1"), "a connection the proxy never had")
}
