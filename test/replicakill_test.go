package test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/simulate/chain"
	"github.com/c5c3/glance-hooks/test/perf"
	"github.com/c5c3/glance-hooks/transport/server"
)

// killMode is when the stopped replica goes away.
type killMode int

const (
	// killBefore stops the replica between two requests: the next one sent
	// to it finds nothing listening.
	killBefore killMode = iota
	// killWhileAnswering stops it after it read request k and worked out
	// its answer, before a byte of the answer is sent: the client's
	// connection is closed under it.
	killWhileAnswering
)

// hookService is two hook servers behind one stand-in Service, as the
// chart runs them: call n goes to endpoint n mod 2. A stopped replica stays
// an endpoint for the rest of the walk (the endpoints lag behind a pod's
// death), so every later call sent to it fails and is requeued, and the
// requeued call goes to the next endpoint.
type hookService struct {
	t        *testing.T
	client   *http.Client
	replicas []*hookReplica
	// now is the chain's clock, which both servers stamp with, so an
	// answer does not depend on which replica gave it.
	now             atomic.Pointer[time.Time]
	calls, failures int
	killAt          int
	mode            killMode
	// answeredAfterKill counts the answers of the stopped replica from the
	// kill on: it must stay 0.
	answeredAfterKill int
}

type hookReplica struct {
	srv      *httptest.Server
	answered int
	// dying makes the replica's next request its last (killWhileAnswering).
	dying atomic.Bool
	dead  bool
}

// newHookService starts the two replicas; killAt < 0 stops none.
func newHookService(t *testing.T, killAt int, mode killMode) *hookService {
	s := &hookService{t: t, killAt: killAt, mode: mode, client: &http.Client{Timeout: time.Minute}}
	s.now.Store(&perf.Now)
	for range 2 {
		r := &hookReplica{}
		// The body timeout is a minute: this test is about replicas that
		// die, and on a loaded machine the default 5 s could answer 408.
		h := server.New(server.Config{Logger: slog.New(slog.DiscardHandler), Routes: server.DefaultRoutes(),
			Now: func() time.Time { return *s.now.Load() }, BodyReadTimeout: time.Minute})
		r.srv = httptest.NewServer(r.dieWhenTold(h))
		t.Cleanup(r.stop)
		s.replicas = append(s.replicas, r)
	}
	return s
}

// dieWhenTold serves h, but when the replica is dying it works out the
// answer and then closes the connection instead of sending it, as a pod
// killed at that moment would.
func (r *hookReplica) dieWhenTold(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if !r.dying.Load() {
			h.ServeHTTP(w, req)
			return
		}
		h.ServeHTTP(httptest.NewRecorder(), req)
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			_ = conn.Close()
		}
	})
}

func (r *hookReplica) stop() {
	if !r.dead {
		r.dead = true
		r.srv.Close()
	}
}

// post sends one hook call through the Service: the replica whose turn it
// is answers, or the call fails as a call to a stopped pod does.
func (s *hookService) post(path string, body []byte) ([]byte, error) {
	n := s.calls
	s.calls++
	r := s.replicas[n%len(s.replicas)]
	if n == s.killAt {
		if s.mode == killBefore {
			r.stop()
		} else {
			r.dying.Store(true)
			defer r.stop()
		}
	}
	answer, err := s.send(r.srv.URL+path, body)
	if err != nil {
		s.failures++
		return nil, fmt.Errorf("call %d: %w", n, err)
	}
	r.answered++
	if r.dead || r.dying.Load() {
		s.answeredAfterKill++
	}
	return answer, nil
}

func (s *hookService) send(url string, body []byte) ([]byte, error) {
	resp, err := s.client.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: %d %s", url, resp.StatusCode, out)
	}
	return out, nil
}

// controllers are the chain's controllers with every hook called through
// the Service, each failed call requeued as Metacontroller does.
func (s *hookService) controllers() []chain.Controller {
	var out []chain.Controller
	for _, c := range chain.Controllers() {
		route := strings.ToLower(c.Parent.Kind)
		c.Sync = func(req *metacontroller.SyncRequest, now time.Time) (*metacontroller.SyncResponse, error) {
			s.now.Store(&now)
			var resp metacontroller.SyncResponse
			return &resp, s.call("/sync/"+route, req, &resp)
		}
		c.Customize = func(req *metacontroller.CustomizeRequest) (*metacontroller.CustomizeResponse, error) {
			var resp metacontroller.CustomizeResponse
			return &resp, s.call("/customize/"+route, req, &resp)
		}
		out = append(out, chain.Requeue(c, 3))
	}
	return out
}

func (s *hookService) call(path string, req, resp any) error {
	body, err := json.Marshal(req)
	if err != nil {
		return err
	}
	answer, err := s.post(path, body)
	if err != nil {
		return err
	}
	return json.Unmarshal(answer, resp)
}

// walkJSON is a walk's steps as JSON, to compare two walks whole.
func walkJSON(t *testing.T, steps []perf.WriteStep) string {
	t.Helper()
	raw, err := json.MarshalIndent(steps, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// One of two hook replicas stopped at any point of the guide's walk (its
// three converges: install, Step 2 and Step 3) loses nothing: the calls
// the stopped replica would have answered fail, Metacontroller requeues
// them, the other replica answers them, and the walk ends in the same
// objects (children, statuses, Events, last-applied records) with the same
// writes as the in-process walk nobody disturbed. Every request index of
// the walk is a kill point: the even ones stop the replica between two
// requests, the odd ones while it answers (each walk takes a fifth of a
// second; KILL_EVERY_POINT_BOTH_WAYS=1 tries every index both ways).
func TestReplicaKilledMidConverge(t *testing.T) {
	want, err := perf.GuideWalk(chain.Controllers(), perf.Now)
	if err != nil {
		t.Fatal(err)
	}
	undisturbed := newHookService(t, -1, killBefore)
	got, err := perf.GuideWalk(undisturbed.controllers(), perf.Now)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(walkJSON(t, want), walkJSON(t, got)); diff != "" {
		t.Fatalf("served over HTTP by two replicas, the walk differs from the in-process one (-want +got):\n%s", diff)
	}
	total := undisturbed.calls
	if total < 50 || undisturbed.failures != 0 {
		t.Fatalf("the undisturbed walk made %d calls (want at least 50), %d failed", total, undisturbed.failures)
	}
	modes := map[string]struct {
		reason string
		mode   killMode
		parity int
	}{
		"between requests": {"the replica is gone when request k reaches it", killBefore, 0},
		"while answering":  {"the replica read request k and dies before answering it", killWhileAnswering, 1},
	}
	for name, m := range modes {
		t.Run(name, func(t *testing.T) {
			for k := range total {
				if k%2 == m.parity || os.Getenv("KILL_EVERY_POINT_BOTH_WAYS") != "" {
					checkKilledWalk(t, k, m.mode, m.reason, walkJSON(t, want), total)
				}
			}
		})
	}
	t.Logf("%d kill points, each walk %d calls undisturbed", total, total)
}

// checkKilledWalk runs the walk with a replica stopped at call k and
// compares it with the undisturbed walk.
func checkKilledWalk(t *testing.T, k int, mode killMode, reason, want string, total int) {
	t.Helper()
	s := newHookService(t, k, mode)
	got, err := perf.GuideWalk(s.controllers(), perf.Now)
	if err != nil {
		t.Fatalf("kill at call %d (%s): the walk failed: %v", k, reason, err)
	}
	if diff := cmp.Diff(want, walkJSON(t, got)); diff != "" {
		t.Fatalf("kill at call %d (%s): another end state (-undisturbed +killed):\n%s", k, reason, diff)
	}
	answered := s.replicas[0].answered + s.replicas[1].answered
	switch {
	case s.failures == 0:
		t.Errorf("kill at call %d (%s): no call failed, so the replica was not stopped", k, reason)
	case answered != total:
		t.Errorf("kill at call %d (%s): %d calls answered, the undisturbed walk %d", k, reason, answered, total)
	case s.answeredAfterKill != 0:
		t.Errorf("kill at call %d (%s): the stopped replica answered %d calls", k, reason, s.answeredAfterKill)
	}
}
