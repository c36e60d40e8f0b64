package glancestack

import (
	"errors"
	"io"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/c5c3/glance-hooks/hooks/glance"
)

// ServiceProxy stands for the Glance's Service as kube-proxy serves it: a
// loopback port whose every connection goes, for its whole life, to one
// endpoint picked in turn among the ready pods of the Deployment. The stack
// is the endpoints controller: a pod joins once it is ready, and leaves
// when its stop begins (the pod's deletion, before its preStop sleep). The
// proxy learns of a pod's leaving Lag later, as kube-proxy learns of an
// endpoint change after a while; until then new connections still reach
// the pod. A connection already open to a pod that left stays open, as
// conntrack keeps it. A connection with no endpoint to go to, or whose
// endpoint does not answer, is reset, as a Service without endpoints
// rejects it.
type ServiceProxy struct {
	// URL is the Service's base, http://127.0.0.1:<port>.
	URL string
	// Lag is how long after a pod's stop began new connections stop
	// reaching it.
	Lag time.Duration

	ln        net.Listener
	mu        sync.Mutex
	endpoints []string
	next      int
	conns     map[net.Conn]bool
	served    map[string]int
	routes    map[string]string
	reset     int
	wg        sync.WaitGroup
}

// StartServiceProxy puts a ServiceProxy in front of the stack's pods,
// those that serve now and every pod the stack starts from now on; t's
// cleanup closes it.
func (s *Stack) StartServiceProxy(t testing.TB, lag time.Duration) *ServiceProxy {
	t.Helper()
	s.mu.Lock()
	var endpoints []string
	for _, pod := range s.pods {
		endpoints = append(endpoints, endpointOf(pod))
	}
	s.mu.Unlock()
	p := StartServiceProxy(t, lag, endpoints...)
	s.mu.Lock()
	s.proxy = p
	s.mu.Unlock()
	t.Cleanup(func() {
		s.mu.Lock()
		s.proxy = nil
		s.mu.Unlock()
	})
	return p
}

// StartServiceProxy starts a ServiceProxy on a loopback port with the
// endpoints given (addresses host:port); t's cleanup closes it.
func StartServiceProxy(t testing.TB, lag time.Duration, endpoints ...string) *ServiceProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &ServiceProxy{URL: "http://" + ln.Addr().String(), Lag: lag, ln: ln, endpoints: endpoints,
		conns: map[net.Conn]bool{}, served: map[string]int{}, routes: map[string]string{}}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(p.close)
	return p
}

// endpointOf is the address a pod serves the API on.
func endpointOf(p *Pod) string { return p.Addr(glance.PortName) }

// Join adds an endpoint that is ready now.
func (v *ServiceProxy) Join(addr string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.endpoints = append(v.endpoints, addr)
}

// Leave takes an endpoint whose pod's stop begins out, Lag from now.
func (v *ServiceProxy) Leave(addr string) {
	time.AfterFunc(v.Lag, func() {
		v.mu.Lock()
		defer v.mu.Unlock()
		v.endpoints = slices.DeleteFunc(v.endpoints, func(e string) bool { return e == addr })
	})
}

// Served is how many connections went to each endpoint, by pod address.
func (v *ServiceProxy) Served() map[string]int {
	v.mu.Lock()
	defer v.mu.Unlock()
	out := make(map[string]int, len(v.served))
	for k, n := range v.served {
		out[k] = n
	}
	return out
}

// Route is the endpoint the connection from client (the client's own
// address, host:port) went to, "" for none.
func (v *ServiceProxy) Route(client string) string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.routes[client]
}

// Reset is how many connections were reset: no endpoint, or it did not
// answer.
func (v *ServiceProxy) Reset() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.reset
}

func (v *ServiceProxy) accept() {
	defer v.wg.Done()
	for {
		c, err := v.ln.Accept()
		if err != nil {
			return
		}
		v.wg.Add(1)
		go v.relay(c)
	}
}

// pick is the next endpoint in turn, "" with none.
func (v *ServiceProxy) pick() string {
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(v.endpoints) == 0 {
		return ""
	}
	v.next = (v.next + 1) % len(v.endpoints)
	return v.endpoints[v.next]
}

// relay carries one client connection to an endpoint and back, each way
// until its sender closes it.
func (v *ServiceProxy) relay(client net.Conn) {
	defer v.wg.Done()
	addr := v.pick()
	var backend net.Conn
	err := errors.New("no endpoint")
	if addr != "" {
		backend, err = net.DialTimeout("tcp", addr, 5*time.Second)
	}
	if err != nil || !v.track(client, backend, addr) {
		v.mu.Lock()
		v.reset++
		v.mu.Unlock()
		resetConn(client)
		if backend != nil {
			_ = backend.Close()
		}
		return
	}
	defer v.untrack(client, backend)
	done := make(chan struct{})
	go func() {
		pipe(backend, client)
		close(done)
	}()
	pipe(client, backend)
	<-done
}

// track records an open relay; it is false once the proxy is closed.
func (v *ServiceProxy) track(client, backend net.Conn, addr string) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.conns == nil {
		return false
	}
	v.conns[client], v.conns[backend] = true, true
	v.served[addr]++
	v.routes[client.RemoteAddr().String()] = addr
	return true
}

func (v *ServiceProxy) untrack(client, backend net.Conn) {
	v.mu.Lock()
	delete(v.conns, client)
	delete(v.conns, backend)
	v.mu.Unlock()
	_ = client.Close()
	_ = backend.Close()
}

// pipe copies from one side to the other and passes the end of the stream
// on: a close as a half close, a reset as a reset.
func pipe(to, from net.Conn) {
	_, err := io.Copy(to, from)
	if err != nil {
		resetConn(to)
		resetConn(from)
		return
	}
	if tc, ok := to.(*net.TCPConn); ok {
		_ = tc.CloseWrite()
	}
}

// resetConn closes a connection with a reset rather than a FIN.
func resetConn(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = c.Close()
}

// close stops accepting and resets every connection still open.
func (v *ServiceProxy) close() {
	_ = v.ln.Close()
	v.mu.Lock()
	for c := range v.conns {
		resetConn(c)
	}
	v.conns = nil
	v.mu.Unlock()
	v.wg.Wait()
}
