// Package storecheck checks whether a store's S3 endpoint answers, for the
// GlanceBackend sync hook (glancebackend.Hook.Check): the hooks are pure,
// so the dialing lives here, beside the transport.
package storecheck

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/c5c3/glance-hooks/hooks/glancebackend"
)

// Checker checks endpoints, each at most once per TTL: every backend on
// one S3 server, and every sync within the TTL, reads one check. A
// check waits at most Timeout, so a store that does not answer at all
// (a dropped route) holds a sync for no longer than that.
type Checker struct {
	Timeout time.Duration
	TTL     time.Duration
	client  *http.Client

	mu    sync.Mutex
	cache map[string]entry
}

type entry struct {
	at    time.Time
	reach glancebackend.Reach
}

// The defaults: a check is one HTTP request, which an S3 server on a
// cluster network answers in milliseconds; two seconds leave room for a
// TLS handshake on a busy server and keep a sync well inside
// Metacontroller's 10 s hook timeout. A verdict is kept for less than the
// recheck of an unreachable store (glancebackend.DefaultRecheck), so the
// recheck always sees a fresh one.
const (
	DefaultTimeout = 2 * time.Second
	DefaultTTL     = 10 * time.Second
)

// New is a Checker with timeout and ttl, each its default when zero.
func New(timeout, ttl time.Duration) *Checker {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	if ttl <= 0 {
		ttl = DefaultTTL
	}
	transport := &http.Transport{
		Proxy:       http.ProxyFromEnvironment,
		DialContext: (&net.Dialer{Timeout: timeout}).DialContext,
		// Whether the endpoint answers, not whom: the certificate is
		// CABundleReady's concern and glance-api's, and the check sends
		// no credential and reads nothing but the status code.
		TLSClientConfig:   &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS12},
		DisableKeepAlives: true,
	}
	return &Checker{Timeout: timeout, TTL: ttl, cache: map[string]entry{},
		client: &http.Client{Transport: transport, Timeout: timeout,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// Check is the verdict on endpoint at now: the cached one while it is
// younger than the TTL, else a new check's. now is the sync's clock, so a
// verdict is reused by the syncs of one moment and never by a later one.
func (c *Checker) Check(endpoint string, now time.Time) glancebackend.Reach {
	c.mu.Lock()
	e, ok := c.cache[endpoint]
	c.mu.Unlock()
	if ok && !now.Before(e.at) && now.Sub(e.at) < c.TTL {
		return e.reach
	}
	r := c.probe(endpoint)
	c.mu.Lock()
	// The key outlives the request: a copy, so the cache never holds the
	// memory of the request body the endpoint was decoded from.
	c.cache[strings.Clone(endpoint)] = entry{at: now, reach: r}
	c.mu.Unlock()
	return r
}

// probe sends one GET to the endpoint. Any answer below 500 is a server
// that answers (S3 refuses an unsigned request with 403); a 5xx is a
// proxy or load balancer whose S3 servers are gone.
func (c *Checker) probe(endpoint string) glancebackend.Reach {
	ctx, cancel := context.WithTimeout(context.Background(), c.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint, nil)
	if err != nil {
		return glancebackend.Reach{Detail: "not a URL to check: " + err.Error()}
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return glancebackend.Reach{Detail: describe(err, c.Timeout)}
	}
	defer resp.Body.Close()
	if resp.StatusCode >= http.StatusInternalServerError {
		return glancebackend.Reach{Detail: fmt.Sprintf("it answers %s", resp.Status)}
	}
	return glancebackend.Reach{Reachable: true, Detail: fmt.Sprintf("HTTP %d", resp.StatusCode)}
}

// describe says why a check failed in the words of the fault, without the
// request line Go's client wraps around it.
func describe(err error, timeout time.Duration) string {
	var op *net.OpError
	var dns *net.DNSError
	switch {
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, http.ErrHandlerTimeout):
		return fmt.Sprintf("no answer within %s", timeout)
	case errors.As(err, &dns):
		return "its host does not resolve: " + dns.Error()
	case errors.As(err, &op):
		return op.Op + ": " + op.Err.Error()
	}
	var ue interface{ Timeout() bool }
	if errors.As(err, &ue) && ue.Timeout() {
		return fmt.Sprintf("no answer within %s", timeout)
	}
	return err.Error()
}
