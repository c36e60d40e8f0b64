package perf

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/test/floor"
	"github.com/c5c3/glance-hooks/transport/server"
)

// BenchSizes are the generated worlds the benchmarks serve: Glances up to a
// thousand backends, ControlPlanes up to the most backends entries one may
// hold, and the full world (GlanceFull: the guide's Glance with every
// optional feature) at 1, 100 and 1000 backends.
var BenchSizes = Sizes{
	Glance:       []int{1, 10, 100, 1000},
	ControlPlane: []int{1, 10, api.MaxBackendEntries},
	EveryBlock:   []int{1000},
	Full:         []int{1, 100, 1000},
}

var (
	loadOnce sync.Once
	loaded   []Request
	loadErr  error
)

// benchRequests are the recorded requests, then the generated ones.
func benchRequests(b *testing.B) []Request {
	loadOnce.Do(func() {
		root, err := Root()
		if err != nil {
			loadErr = err
			return
		}
		rec, err := Recorded(root)
		if err != nil {
			loadErr = err
			return
		}
		gen, err := Generated(root, BenchSizes)
		loaded, loadErr = append(rec, gen...), err
	})
	if loadErr != nil {
		b.Fatal(loadErr)
	}
	return loaded
}

// newServer is the service's transport, as serve builds it, with a fixed
// clock and the request log discarded.
func newServer(routes []server.Route) http.Handler {
	return server.New(server.Config{
		Logger: slog.New(slog.NewJSONHandler(io.Discard, nil)),
		Now:    func() time.Time { return Now },
		Routes: routes,
	})
}

// sink is a ResponseWriter that keeps the status and counts the bytes, the
// way a connection takes them, without buffering the body.
type sink struct {
	header http.Header
	code   int
	n      int
}

func (s *sink) Header() http.Header         { return s.header }
func (s *sink) WriteHeader(code int)        { s.code = code }
func (s *sink) Write(p []byte) (int, error) { s.n += len(p); return len(p), nil }

// post serves one request through h and fails unless it answered 200; it
// returns the answer's ETag.
func post(b *testing.B, h http.Handler, r Request) string {
	req := httptest.NewRequest(http.MethodPost, r.Path, bytes.NewReader(r.Body))
	req.Header.Set("Content-Type", "application/json")
	w := &sink{header: http.Header{}, code: http.StatusOK}
	h.ServeHTTP(w, req)
	if w.code != http.StatusOK || w.n == 0 {
		b.Fatalf("%s %s answered %d", r.Path, r.Case, w.code)
	}
	return w.header.Get("ETag")
}

// resync serves the request again as Metacontroller sends it once it keeps
// the answer (If-None-Match with the answer's ETag) and fails unless it was
// answered 304.
func resync(b *testing.B, h http.Handler, r Request, tag string) {
	req := httptest.NewRequest(http.MethodPost, r.Path, bytes.NewReader(r.Body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("If-None-Match", tag)
	w := &sink{header: http.Header{}, code: http.StatusOK}
	h.ServeHTTP(w, req)
	if w.code != http.StatusNotModified {
		b.Fatalf("%s %s with its ETag answered %d", r.Path, r.Case, w.code)
	}
}

// codec is the floor without the transport: decode the body into its
// envelope with encoding/json and marshal the envelope again.
func codec(b *testing.B, r Request) {
	var env any = &metacontroller.SyncRequest{}
	if strings.HasPrefix(r.Path, "/customize/") {
		env = &metacontroller.CustomizeRequest{}
	}
	if err := json.Unmarshal(r.Body, env); err != nil {
		b.Fatal(err)
	}
	if _, err := json.Marshal(env); err != nil {
		b.Fatal(err)
	}
}

func nsPerOp(b *testing.B) float64 { return float64(b.Elapsed().Nanoseconds()) / float64(b.N) }

// cpuTime is the CPU time the process used so far, user and system, every
// thread (so the garbage collector's background work counts too).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// measure runs op in the benchmark loop and reports, besides wall time, the
// CPU time per op: on a shared machine wall time grows with other load, CPU
// time much less.
func measure(b *testing.B, size int, op func()) float64 {
	b.SetBytes(int64(size))
	b.ReportAllocs()
	start := cpuTime()
	for b.Loop() {
		op()
	}
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
	return nsPerOp(b)
}

// BenchmarkHooks serves every request four ways, one after the other:
// "codec" decodes and re-encodes it with no transport and no logic, "floor"
// serves it through the service's transport with the floor handlers
// (floor.Routes: decode the envelope, answer it re-encoded), "hook"
// serves it through the same transport with the real hook, and "resync"
// serves it again with the ETag of the hook's answer, as Metacontroller
// resyncs an unchanged parent (a 304). The hook's x-floor is its time over
// the floor's and the resync's x-hook its time over the hook's, each pair
// served in turns (see inTurns); the hook's x-codec is its time over the
// codec's, measured apart.
func BenchmarkHooks(b *testing.B) {
	hook, floor := newServer(server.DefaultRoutes()), newServer(floor.Routes())
	for _, r := range benchRequests(b) {
		name := strings.Replace(r.Path[1:], "/", "-", 1) + "/" + r.Case
		var codecNs, floorNs, hookNs float64
		var tag string
		b.Run(name+"/codec", func(b *testing.B) {
			codecNs = measure(b, len(r.Body), func() { codec(b, r) })
		})
		b.Run(name+"/floor", func(b *testing.B) {
			floorNs = measure(b, len(r.Body), func() { post(b, floor, r) })
		})
		b.Run(name+"/hook", func(b *testing.B) {
			hookNs = measure(b, len(r.Body), func() { tag = post(b, hook, r) })
			if floorNs > 0 && codecNs > 0 {
				b.ReportMetric(inTurns(func() { post(b, floor, r) }, func() { post(b, hook, r) }, 1), "x-floor")
				b.ReportMetric(hookNs/codecNs, "x-codec")
			}
		})
		b.Run(name+"/resync", func(b *testing.B) {
			if tag == "" {
				b.Fatalf("%s %s: the hook's answer carries no ETag", r.Path, r.Case)
			}
			measure(b, len(r.Body), func() { resync(b, hook, r, tag) })
			if hookNs > 0 {
				k := max(1, int(hookNs/nsPerOp(b)))
				b.ReportMetric(inTurns(func() { post(b, hook, r) }, func() { resync(b, hook, r, tag) }, k), "x-hook")
			}
		})
	}
}

// inTurns is op's wall time over base's, the two run in turns: base once,
// then op k times (as many as take about as long as base, from the two
// sub-benchmarks' times), op's mean over base's time; the median of at
// least turnsAtLeast such turns, for turnsFor at least. Timed in
// sub-benchmarks of their own, the two ran at different moments, and on a
// machine shared with other work either could land in a busier second:
// with the same code, a 304 over a full answer moved between 0.016x and
// 0.12x within an hour, and the full world's hook over its floor between
// 0.4x and 0.7x from one make bench run to the next. In turns of about
// equal length both see the same load. The times and CPU times per op are
// still the sub-benchmarks' own.
func inTurns(base, op func(), k int) float64 {
	var ratios []float64
	for start := time.Now(); len(ratios) < turnsAtLeast || time.Since(start) < turnsFor; {
		t0 := time.Now()
		base()
		t1 := time.Now()
		for range k {
			op()
		}
		ratios = append(ratios, float64(time.Since(t1))/float64(k)/float64(t1.Sub(t0)))
	}
	slices.Sort(ratios)
	return ratios[len(ratios)/2]
}

const (
	turnsAtLeast = 5
	turnsFor     = 200 * time.Millisecond
)

// BenchmarkConverge converges the generated worlds with the in-process
// Metacontroller (simulate/chain), as Generated does before it
// captures the requests and render does for its input: every hook call of
// every round, and the chain's own work between them.
func BenchmarkConverge(b *testing.B) {
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("glance/gen-%d/chain", n), func(b *testing.B) {
			measure(b, 0, func() {
				if _, err := Glance(n); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}
