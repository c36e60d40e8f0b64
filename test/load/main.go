// Command load is the load test of the hook service. It starts the service
// binary and its floor twin (test/load/floorserve: the same server with
// handlers that only decode and re-encode each request, never part of the
// service binary) on free loopback ports, sends both
// the same requests at each concurrency, bounded by a request count and a
// time limit, and prints throughput, p50/p99 latency, errors and each
// process's peak RSS side by side. With -bench it also reads the output of
// the hook benchmarks (go test -bench ./test/perf) and prints everything as
// one table, each figure next to its target.
//
// It talks to 127.0.0.1 only and is not part of the image.
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/test/perf"
)

type config struct {
	bin      string
	floorBin string
	backends int
	// entries is the ControlPlane's backends entries for /sync/controlplane
	// (a ControlPlane holds at most api.MaxBackendEntries, so that route
	// is not part of the large load).
	entries     int
	paths       []string
	concurrency []int
	// largeBackends, when not 0, loads the requests of that many backends
	// too, at largeConcurrency only, with servers of their own so their
	// peak RSS is that load's.
	largeBackends    int
	largeConcurrency []int
	requests         int
	duration         time.Duration
	warmup           int
	slices           int
	benchFile        string
}

func main() {
	var cfg config
	var paths, conc, largeConc string
	flag.StringVar(&cfg.bin, "bin", "bin/glance-hooks", "the service binary (make build)")
	flag.StringVar(&cfg.floorBin, "floor-bin", "bin/glance-hooks-floor", "the floor binary (go build ./test/load/floorserve, as make bench does)")
	flag.IntVar(&cfg.backends, "backends", 100, "backends of the generated Glance whose requests are sent")
	flag.IntVar(&cfg.entries, "entries", api.MaxBackendEntries, fmt.Sprintf("backends entries of the generated ControlPlane whose /sync/controlplane request is sent (at most %d)", api.MaxBackendEntries))
	flag.StringVar(&paths, "paths", "/sync/glance,/sync/controlplane", "routes to load, comma-separated")
	flag.StringVar(&conc, "concurrency", "1,8,64", "concurrency levels, comma-separated")
	flag.IntVar(&cfg.largeBackends, "large-backends", 0, "also send the Glance requests of this many backends (0: no), at -large-concurrency, with servers of their own")
	flag.StringVar(&largeConc, "large-concurrency", "64", "concurrency levels of the -large-backends load, comma-separated")
	flag.IntVar(&cfg.requests, "requests", 3000, "at most this many measured requests per route, concurrency and server")
	flag.DurationVar(&cfg.duration, "duration", 6*time.Second, "at most this long per route, concurrency and server")
	flag.IntVar(&cfg.warmup, "warmup", 20, "requests sent before each measurement and not counted")
	flag.IntVar(&cfg.slices, "slices", 4, "slices each measurement is cut into, alternating between the hook and the floor server")
	flag.StringVar(&cfg.benchFile, "bench", "", "output of go test -bench ./test/perf to include in the table")
	flag.Parse()
	cfg.paths = strings.Split(paths, ",")
	var err error
	if cfg.concurrency, err = levels(conc); err == nil {
		cfg.largeConcurrency, err = levels(largeConc)
	}
	if err == nil && (cfg.entries < 1 || cfg.entries > api.MaxBackendEntries) {
		err = fmt.Errorf("-entries %d: a ControlPlane holds 1 to %d backends entries", cfg.entries, api.MaxBackendEntries)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(2)
	}
	rep, err := run(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(1)
	}
	rep.print(os.Stdout)
}

// levels parses a comma-separated list of concurrency levels.
func levels(list string) ([]int, error) {
	var out []int
	for _, c := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(c))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("bad concurrency %q", c)
		}
		out = append(out, n)
	}
	return out, nil
}

// cell is one measurement: a server mode, a route, the size of the
// request's world and a concurrency.
type cell struct {
	mode     string // "hook" or "floor"
	path     string
	size     int // see sizeName
	conc     int
	done     int // requests answered, errors included
	errors   int
	elapsed  time.Duration
	p50, p99 time.Duration
	// serverCPU is the CPU time the server process used meanwhile.
	serverCPU time.Duration
}

// cpuPerRequest is the server's CPU time per answered request.
func (c cell) cpuPerRequest() time.Duration {
	if c.done == 0 {
		return 0
	}
	return c.serverCPU / time.Duration(c.done)
}

func (c cell) throughput() float64 {
	if c.elapsed <= 0 {
		return 0
	}
	return float64(c.done-c.errors) / c.elapsed.Seconds()
}

// report is everything one run measured.
type report struct {
	cfg     config
	cells   []cell
	rss     map[string]int64 // rssKey -> peak RSS in bytes
	loaded  []routeSize      // every route and size loaded, in order
	bench   []benchResult
	writes  []perf.WriteStep // the guide's walk through the in-process Metacontroller
	before  string           // load average when the run started
	after   string
	started time.Time
}

func run(cfg config) (*report, error) {
	rep := &report{cfg: cfg, rss: map[string]int64{}, before: loadAvg(), started: time.Now()}
	if cfg.benchFile != "" {
		raw, err := os.ReadFile(cfg.benchFile)
		if err != nil {
			return nil, err
		}
		rep.bench = parseBench(raw)
	}
	writes, err := perf.GuideWrites()
	if err != nil {
		return nil, err
	}
	rep.writes = writes
	type load struct {
		sizes       perf.Sizes
		concurrency []int
	}
	loads := []load{{perf.Sizes{Glance: []int{cfg.backends}, ControlPlane: []int{cfg.entries}}, cfg.concurrency}}
	if cfg.largeBackends > 0 {
		// The large load is the full world: what a cluster sends for the
		// guide's Glance with every optional feature on.
		loads = append(loads, load{perf.Sizes{Full: []int{cfg.largeBackends}}, cfg.largeConcurrency})
	}
	for _, l := range loads {
		bodies, err := requests(l.sizes)
		if err != nil {
			return nil, err
		}
		for _, path := range cfg.paths {
			if path == controlPlanePath && len(l.sizes.ControlPlane) == 0 {
				continue
			}
			body, ok := bodies[path]
			if !ok {
				return nil, fmt.Errorf("no generated request for %s", path)
			}
			size := slices.Concat(l.sizes.Glance, l.sizes.Full)[0]
			if path == controlPlanePath {
				size = l.sizes.ControlPlane[0]
			}
			if err := loadPath(cfg, rep, routeSize{path, size}, l.concurrency, body); err != nil {
				return nil, err
			}
			rep.loaded = append(rep.loaded, routeSize{path, size})
		}
	}
	rep.after = loadAvg()
	return rep, nil
}

const controlPlanePath = "/sync/controlplane"

// routeSize is one route loaded with the request of one world.
type routeSize struct {
	path string
	size int
}

// sizeName says what a request's size counts: a ControlPlane's backends
// entries, or a Glance's GlanceBackends.
func sizeName(path string, size int) string {
	if path == controlPlanePath {
		return fmt.Sprintf("%d entries", size)
	}
	return fmt.Sprintf("%d backends", size)
}

// rssKey names the peak RSS of one server over one route's load.
func rssKey(mode, path string, size int) string {
	return fmt.Sprintf("%s %s %d", mode, path, size)
}

// requests are the generated bodies, by route (cached in .cache/perf like
// the benchmarks').
func requests(sizes perf.Sizes) (map[string][]byte, error) {
	root, err := perf.Root()
	if err != nil {
		return nil, err
	}
	gen, err := perf.Generated(root, sizes)
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for _, r := range gen {
		out[r.Path] = r.Body
	}
	return out, nil
}

// loadPath starts a hook server and a floor server and measures both at
// every concurrency. Each measurement is cut into slices that alternate
// between the two servers, so a change in the machine's load while the
// test runs weighs on both alike.
func loadPath(cfg config, rep *report, rs routeSize, concurrency []int, body []byte) error {
	path, size := rs.path, rs.size
	servers := map[string]*server{}
	defer func() {
		for _, s := range servers {
			s.stop()
		}
	}()
	for _, mode := range []string{"hook", "floor"} {
		s, err := start(cfg, mode == "floor")
		if err != nil {
			return err
		}
		servers[mode] = s
	}
	slicesN := max(1, min(cfg.slices, cfg.requests))
	for _, conc := range concurrency {
		runs := map[string]*measured{}
		for _, mode := range []string{"hook", "floor"} {
			drive("http://"+servers[mode].addr+path, body, conc, cfg.warmup, time.Minute)
			runs[mode] = &measured{}
		}
		for i := range slicesN {
			order := []string{"hook", "floor"}
			if i%2 == 1 {
				order = []string{"floor", "hook"}
			}
			for _, mode := range order {
				before := servers[mode].cpuTime()
				r := drive("http://"+servers[mode].addr+path, body, conc, cfg.requests/slicesN, cfg.duration/time.Duration(slicesN))
				r.serverCPU = servers[mode].cpuTime() - before
				runs[mode].add(r)
			}
		}
		for _, mode := range []string{"hook", "floor"} {
			c := runs[mode].cell()
			c.mode, c.path, c.size, c.conc = mode, path, size, conc
			rep.cells = append(rep.cells, c)
		}
	}
	for mode, s := range servers {
		rss, err := s.peakRSS()
		if err != nil {
			return err
		}
		rep.rss[rssKey(mode, path, size)] = rss
	}
	return nil
}

// measured is what one or more drives measured.
type measured struct {
	latencies []time.Duration
	errors    int
	elapsed   time.Duration
	serverCPU time.Duration
}

func (r *measured) add(o measured) {
	r.latencies = append(r.latencies, o.latencies...)
	r.errors += o.errors
	r.elapsed += o.elapsed
	r.serverCPU += o.serverCPU
}

func (r *measured) cell() cell {
	all := slices.Clone(r.latencies)
	slices.Sort(all)
	c := cell{done: len(all), errors: r.errors, elapsed: r.elapsed, serverCPU: r.serverCPU}
	if len(all) > 0 {
		c.p50 = all[len(all)*50/100]
		c.p99 = all[min(len(all)-1, len(all)*99/100)]
	}
	return c
}

// drive posts body to url from conc workers until n requests were sent or
// the time is up, and measures every answer. Anything but a 200 with a JSON
// object is an error.
func drive(url string, body []byte, conc, n int, limit time.Duration) measured {
	tr := &http.Transport{
		Proxy:               nil, // loopback only, whatever the environment says
		MaxIdleConns:        conc,
		MaxIdleConnsPerHost: conc,
		DisableCompression:  true,
	}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: time.Minute}
	var next atomic.Int64
	var errCount atomic.Int64
	lat := make([][]time.Duration, conc)
	start := time.Now()
	deadline := start.Add(limit)
	var wg sync.WaitGroup
	for w := range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(n) && time.Now().Before(deadline) {
				t0 := time.Now()
				if !post(client, url, body) {
					errCount.Add(1)
				}
				lat[w] = append(lat[w], time.Since(t0))
			}
		}()
	}
	wg.Wait()
	return measured{latencies: slices.Concat(lat...), errors: int(errCount.Load()), elapsed: time.Since(start)}
}

func post(client *http.Client, url string, body []byte) bool {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return false
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	r := bufio.NewReader(resp.Body)
	first, err := r.Peek(1)
	ok := err == nil && first[0] == '{' && resp.StatusCode == http.StatusOK
	if _, err := io.Copy(io.Discard, r); err != nil {
		return false
	}
	return ok
}

// server is one service process.
type server struct {
	cmd  *exec.Cmd
	addr string
	done chan struct{}
}

// start runs "serve" on 127.0.0.1 port 0 and reads the address it got from
// its "serving" log line, then waits until it answers /healthz. The process
// gets no API access (the sync hooks need none); its request log is read
// and thrown away, as a log collector would take it. It serves plain HTTP
// on loopback: the load test measures the hooks, and TLS would cost the
// hooks and the floor the same.
func start(cfg config, floor bool) (*server, error) {
	bin, args := cfg.bin, []string{"serve", "--listen", "127.0.0.1:0", "--insecure-plain-http"}
	if floor {
		bin, args = cfg.floorBin, []string{"--listen", "127.0.0.1:0"}
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG=", "KUBERNETES_SERVICE_HOST=", "KUBERNETES_SERVICE_PORT=")
	logs, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &server{cmd: cmd, done: make(chan struct{})}
	addr := make(chan string, 1)
	go func() {
		r := bufio.NewReader(logs)
		for {
			line, err := r.ReadString('\n')
			if m := listenRE.FindStringSubmatch(line); m != nil {
				addr <- m[1]
				break
			}
			if err != nil {
				break
			}
		}
		_, _ = io.Copy(io.Discard, r)
		_ = cmd.Wait()
		close(s.done)
	}()
	select {
	case s.addr = <-addr:
	case <-s.done:
		return nil, fmt.Errorf("%s serve exited before serving", bin)
	case <-time.After(10 * time.Second):
		s.stop()
		return nil, fmt.Errorf("%s serve did not log its address", bin)
	}
	if err := s.ready(10 * time.Second); err != nil {
		s.stop()
		return nil, fmt.Errorf("%s serve on %s: %w", bin, s.addr, err)
	}
	return s, nil
}

var listenRE = regexp.MustCompile(`"msg":"serving","listen":"(127\.0\.0\.1:[0-9]+)"`)

func (s *server) ready(limit time.Duration) error {
	client := &http.Client{Transport: &http.Transport{Proxy: nil}, Timeout: time.Second}
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		select {
		case <-s.done:
			return errors.New("the process exited")
		default:
		}
		resp, err := client.Get("http://" + s.addr + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return errors.New("no answer on /healthz")
}

// peakRSS is the process's high-water resident set size (VmHWM).
func (s *server) peakRSS() (int64, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return 0, fmt.Errorf("peak RSS: %w", err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10, err
		}
	}
	return 0, errors.New("peak RSS: no VmHWM line")
}

// cpuTime is the CPU time the process used so far, user and system, every
// thread (from /proc, in clock ticks of 10 ms: fine over thousands of
// requests), or 0 where unknown.
func (s *server) cpuTime() time.Duration {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	// The command name in parentheses may hold spaces; fields count after it.
	f := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// stop ends the process: SIGTERM, then SIGKILL if it has not exited in time.
func (s *server) stop() {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	select {
	case <-s.done:
	case <-ctx.Done():
		_ = s.cmd.Process.Kill()
		<-s.done
	}
}

// loadAvg is the 1, 5 and 15 minute load average, or "" where unknown.
func loadAvg() string {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(raw))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

// machine describes where the figures were measured.
func machine() string {
	model := "unknown CPU"
	if raw, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(raw), "\n") {
			if v, ok := strings.CutPrefix(line, "model name"); ok {
				model = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), ":"))
				break
			}
		}
	}
	return fmt.Sprintf("%d CPUs (%s), %s %s/%s", runtime.NumCPU(), model, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
