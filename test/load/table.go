package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/test/perf"
)

// Targets, each a ratio of two figures of one run (absolute times move by
// up to 3x between machines of one kind); docs/performance.md says where
// each comes from.
const (
	targetSyncFloor       = 1.0 // every sync hook from 100 backends up and the ControlPlane at its most entries, hook / floor
	targetGlance1000      = 0.5 // the 1000-backend /sync/glance, hook / floor
	targetCustomizeFloor  = 1.3 // every customize hook, hook / floor
	targetFloorRatio      = 2.0 // every other case, hook / floor
	targetLinear          = 1.2 // the larger world over the smaller, over the ratio of their sizes
	targetFullFloor       = 0.5 // the guide's Glance with every optional feature, /sync/glance at 100 and 1000 backends, hook / floor
	targetResync          = 0.1 // an unchanged 1000-backend /sync/glance answered 304, over a full answer
	targetRSS             = 64 << 20
	targetThroughputRatio = 1.0 // floor over hook at concurrency 64, both routes
	targetFullThroughput  = 0.5 // the same for the large load, the full world
	throughputConcurrency = 64
	targetInstallRollouts = 1 // Deployment writes on the guide's install
)

// largestControlPlane is the benchmark case of the ControlPlane with the
// most backends entries it may hold; the Glance cases go to a thousand
// backends.
var largestControlPlane = fmt.Sprintf("gen-%d", api.MaxBackendEntries)

// growth pairs the two benchmark cases of one hook whose ratio shows how its
// cost grows with the world: the large and the small case and their sizes.
func growth(hook string) (large, small string, sizes float64, unit string) {
	if hook == "sync-controlplane" {
		return largestControlPlane, "gen-10", float64(api.MaxBackendEntries) / 10, "entries"
	}
	return "gen-1000", "gen-100", 10, "backends"
}

// throughputTarget is the floor / hook throughput target of a load of
// requests of size backends: the large load is the full world, held to the
// round's goal.
func throughputTarget(size, largeBackends int) float64 {
	if largeBackends > 0 && size == largeBackends {
		return targetFullThroughput
	}
	return targetThroughputRatio
}

// floorTarget is the hook / floor target of one benchmark case.
func floorTarget(hook, kase string) float64 {
	switch {
	case hook == "sync-glance" && (kase == "gen-1000" || kase == perf.EveryBlockCase(1000)):
		return targetGlance1000
	case hook == "sync-glance" && (kase == perf.FullCase(100) || kase == perf.FullCase(1000)):
		return targetFullFloor
	case strings.HasPrefix(hook, "customize-"):
		return targetCustomizeFloor
	case hook == "sync-controlplane" && kase == largestControlPlane:
		return targetSyncFloor
	case strings.HasPrefix(hook, "sync-") && hook != "sync-controlplane" && (kase == "gen-100" || kase == "gen-1000"):
		return targetSyncFloor
	}
	return targetFloorRatio
}

// benchResult is one line of go test -bench output of BenchmarkHooks, e.g.
// "BenchmarkHooks/sync-glance/gen-100/hook-2  120  9981455 ns/op ...", or
// of BenchmarkConverge ("BenchmarkConverge/glance/gen-1000/chain-2 ...").
type benchResult struct {
	hook, kase, kind string // "sync-glance", "gen-100", "hook" | "floor" | "codec" | "resync"; "glance", "gen-1000", "chain"
	ns, cpuNs        float64
	bytes, allocs    float64
	xFloor, xHook    float64 // a hook's time over the floor's, a resync's over the hook's: each pair served in turns
}

func parseBench(raw []byte) []benchResult {
	var out []benchResult
	for _, line := range strings.Split(string(raw), "\n") {
		f := strings.Fields(line)
		if len(f) < 4 {
			continue
		}
		name, ok := strings.CutPrefix(f[0], "BenchmarkHooks/")
		if !ok {
			name, ok = strings.CutPrefix(f[0], "BenchmarkConverge/")
		}
		if !ok {
			continue
		}
		if i := strings.LastIndexByte(name, '-'); i > strings.LastIndexByte(name, '/') {
			name = name[:i] // the GOMAXPROCS suffix
		}
		parts := strings.Split(name, "/")
		if len(parts) != 3 {
			continue
		}
		r := benchResult{hook: parts[0], kase: parts[1], kind: parts[2]}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				continue
			}
			switch f[i+1] {
			case "ns/op":
				r.ns = v
			case "cpu-ns/op":
				r.cpuNs = v
			case "B/op":
				r.bytes = v
			case "allocs/op":
				r.allocs = v
			case "x-floor":
				r.xFloor = v
			case "x-hook":
				r.xHook = v
			}
		}
		out = append(out, r)
	}
	return out
}

// benchCase is the median of every count of one hook and case.
type benchCase struct {
	hook, kase            string
	hookNs, floorNs       float64
	hookCPU, floorCPU     float64
	hookBytes, hookAllc   float64
	resyncNs, resyncCPU   float64
	hookX, resyncX        float64 // the hook's x-floor, the resync's x-hook; 0 when the output has none
	chainNs, chainCPU     float64
	chainBytes, chainAllc float64
}

// resyncRatio is a 304's wall time over a full answer's and floorRatio
// the hook's over the floor's: as the benchmark measured each pair served
// in turns (x-hook, x-floor), else from the two sub-benchmarks' times,
// which ran at different moments.
func (c benchCase) resyncRatio() float64 { return turnsOr(c.resyncX, c.resyncNs, c.hookNs) }

func (c benchCase) floorRatio() float64 { return turnsOr(c.hookX, c.hookNs, c.floorNs) }

func turnsOr(x, a, b float64) float64 {
	if x > 0 || b == 0 {
		return x
	}
	return a / b
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

func benchCases(results []benchResult) []benchCase {
	type key struct{ hook, kase string }
	var order []key
	vals := map[key]map[string][]float64{}
	for _, r := range results {
		k := key{r.hook, r.kase}
		if vals[k] == nil {
			vals[k] = map[string][]float64{}
			order = append(order, k)
		}
		vals[k][r.kind+".ns"] = append(vals[k][r.kind+".ns"], r.ns)
		vals[k][r.kind+".cpu"] = append(vals[k][r.kind+".cpu"], r.cpuNs)
		vals[k][r.kind+".bytes"] = append(vals[k][r.kind+".bytes"], r.bytes)
		vals[k][r.kind+".allocs"] = append(vals[k][r.kind+".allocs"], r.allocs)
		vals[k][r.kind+".x"] = append(vals[k][r.kind+".x"], max(r.xFloor, r.xHook))
	}
	var out []benchCase
	for _, k := range order {
		v := vals[k]
		out = append(out, benchCase{hook: k.hook, kase: k.kase,
			hookNs: median(v["hook.ns"]), floorNs: median(v["floor.ns"]),
			hookCPU: median(v["hook.cpu"]), floorCPU: median(v["floor.cpu"]),
			hookBytes: median(v["hook.bytes"]), hookAllc: median(v["hook.allocs"]),
			resyncNs: median(v["resync.ns"]), resyncCPU: median(v["resync.cpu"]), resyncX: median(v["resync.x"]), hookX: median(v["hook.x"]),
			chainNs: median(v["chain.ns"]), chainCPU: median(v["chain.cpu"]),
			chainBytes: median(v["chain.bytes"]), chainAllc: median(v["chain.allocs"])})
	}
	return out
}

func dur(ns float64) string {
	d := time.Duration(ns)
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	case d >= time.Millisecond:
		return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
	default:
		return fmt.Sprintf("%.1f µs", float64(d)/float64(time.Microsecond))
	}
}

func ratio(a, b float64) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", a/b)
}

func met(ok bool) string {
	if ok {
		return "met"
	}
	return "MISSED"
}

func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

// print writes the one table: every figure, hook next to floor, with the
// target it is held to and whether it is met.
func (r *report) print(w io.Writer) {
	r.printHeader(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "measure\tcase\thook\tfloor\thook/floor\tcpu hook/floor\ttarget\t")
	row := func(cells ...string) { fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t") }
	cases := benchCases(r.bench)
	benchRows(row, cases)
	resyncRows(row, cases)
	r.loadRows(row)
	r.writesRows(row)
	tw.Flush()
}

// rowWriter writes one line of the table.
type rowWriter func(cells ...string)

func route(hook string) string { return "/" + strings.Replace(hook, "-", "/", 1) }

// printHeader says where and with what the figures were measured.
func (r *report) printHeader(w io.Writer) {
	fmt.Fprintf(w, "machine: %s\n", machine())
	fmt.Fprintf(w, "load average: %s at start, %s at end\n", r.before, r.after)
	large := ""
	if r.cfg.largeBackends > 0 {
		large = fmt.Sprintf(", and the guide's Glance with every optional feature and %d backends (full-%d) at c=%v on servers of their own", r.cfg.largeBackends, r.cfg.largeBackends, r.cfg.largeConcurrency)
	}
	fmt.Fprintf(w, "load: generated requests of a Glance with %d backends and a ControlPlane with %d backends entries (at most %d)%s; at most %d requests or %s per cell and server, in %d slices alternating between the servers, after %d warm-up requests\n\n",
		r.cfg.backends, r.cfg.entries, api.MaxBackendEntries, large, r.cfg.requests, r.cfg.duration, max(1, r.cfg.slices), r.cfg.warmup)
}

// benchRows are the benchmarks' time per request against the floor's,
// then how each hook's time grows from its small case to its large one.
func benchRows(row rowWriter, cases []benchCase) {
	byKey := map[string]benchCase{}
	for _, c := range cases {
		byKey[c.hook+"/"+c.kase] = c
		if c.floorNs == 0 {
			continue
		}
		t := floorTarget(c.hook, c.kase)
		row("bench time/op", route(c.hook)+" "+c.kase, dur(c.hookNs), dur(c.floorNs),
			fmt.Sprintf("%.2fx", c.floorRatio()), ratio(c.hookCPU, c.floorCPU), fmt.Sprintf("<= %.1fx %s", t, met(c.floorRatio() <= t)))
	}
	for _, h := range []string{"sync-glance", "sync-glancebackend", "sync-controlplane", "customize-glance", "customize-glancebackend"} {
		largeCase, smallCase, sizes, unit := growth(h)
		big, ok1 := byKey[h+"/"+largeCase]
		small, ok2 := byKey[h+"/"+smallCase]
		if !ok1 || !ok2 || small.hookNs == 0 {
			continue
		}
		l, t := big.hookNs/small.hookNs, targetLinear*sizes
		row(fmt.Sprintf("%s vs %s %s", strings.TrimPrefix(largeCase, "gen-"), strings.TrimPrefix(smallCase, "gen-"), unit),
			route(h), ratio(big.hookNs, small.hookNs), ratio(big.floorNs, small.floorNs), "-",
			ratio(big.hookCPU, small.hookCPU)+" (hook)", fmt.Sprintf("<= %.1fx %s", t, met(l <= t)))
	}
}

// resyncRows are the unchanged resync (304) against the full answer, and
// what the whole chain takes to converge.
func resyncRows(row rowWriter, cases []benchCase) {
	for _, c := range cases {
		if largest, _, _, _ := growth(c.hook); c.resyncNs == 0 || (c.kase != largest && c.kase != perf.FullCase(1000)) {
			continue
		}
		target := "-"
		if c.hook == "sync-glance" {
			target = fmt.Sprintf("<= %.1fx %s", targetResync, met(c.resyncRatio() <= targetResync))
		}
		row("resync (304) / full", route(c.hook)+" "+c.kase, dur(c.resyncNs), dur(c.hookNs)+" (full)",
			fmt.Sprintf("%.2fx", c.resyncRatio()), ratio(c.resyncCPU, c.hookCPU), target)
	}
	for _, c := range cases {
		if c.chainNs > 0 {
			row("chain converges", c.hook+" "+c.kase, dur(c.chainNs), "-", "-", dur(c.chainCPU)+" cpu",
				"1/10 of before, see docs/performance.md")
		}
	}
}

// loadRows are the load test's cells, hook next to floor for each route,
// size and concurrency, then each server's peak RSS.
func (r *report) loadRows(row rowWriter) {
	cells := map[cellKey]map[string]cell{}
	var keys []cellKey
	for _, c := range r.cells {
		k := cellKey{c.path, c.size, c.conc}
		if cells[k] == nil {
			cells[k] = map[string]cell{}
			keys = append(keys, k)
		}
		cells[k][c.mode] = c
	}
	for _, k := range keys {
		r.loadCellRows(row, k, cells[k])
	}
	for _, l := range r.loaded {
		h, ok := r.rss[rssKey("hook", l.path, l.size)]
		if !ok {
			continue
		}
		f := r.rss[rssKey("floor", l.path, l.size)]
		row("peak RSS", fmt.Sprintf("%s %s (whole run)", l.path, sizeName(l.path, l.size)), mib(h), mib(f), ratio(float64(h), float64(f)), "-",
			fmt.Sprintf("< %s %s", mib(targetRSS), met(h < targetRSS)))
	}
}

// cellKey is a route, the size of its world and a concurrency: what a hook
// cell and its floor cell share.
type cellKey struct {
	path string
	size int
	conc int
}

// loadCellRows are one cell's throughput, CPU, latency and errors.
func (r *report) loadCellRows(row rowWriter, k cellKey, byMode map[string]cell) {
	h, f := byMode["hook"], byMode["floor"]
	name := fmt.Sprintf("%s %s c=%d", k.path, sizeName(k.path, k.size), k.conc)
	target := "-"
	if k.conc == throughputConcurrency {
		want := throughputTarget(k.size, r.cfg.largeBackends)
		ok := h.throughput() > 0 && f.throughput()/h.throughput() <= want
		target = fmt.Sprintf("floor/hook <= %.1fx %s", want, met(ok))
	}
	row("load req/s", name, fmt.Sprintf("%.0f", h.throughput()), fmt.Sprintf("%.0f", f.throughput()),
		ratio(f.throughput(), h.throughput())+" (floor/hook)", "-", target)
	row("load server cpu/req", name, dur(float64(h.cpuPerRequest())), dur(float64(f.cpuPerRequest())),
		ratio(float64(h.cpuPerRequest()), float64(f.cpuPerRequest())), "-", "-")
	row("load p50 / p99", name, dur(float64(h.p50))+" / "+dur(float64(h.p99)), dur(float64(f.p50))+" / "+dur(float64(f.p99)),
		ratio(float64(h.p50), float64(f.p50))+" / "+ratio(float64(h.p99), float64(f.p99)), "-", "-")
	row("load errors", fmt.Sprintf("%s (%d / %d requests)", name, h.done, f.done), strconv.Itoa(h.errors), strconv.Itoa(f.errors), "-", "-",
		"0 "+met(h.errors == 0 && f.errors == 0))
}

// writesRows are the API writes and requests of the guide's walk through
// the in-process Metacontroller.
func (r *report) writesRows(row rowWriter) {
	for _, st := range r.writes {
		for _, k := range perf.WritesKinds(r.writes) {
			w := st.Stats.Writes[k]
			if w.Total() == 0 {
				continue
			}
			target := "-"
			if st.Name == "install" && k == "Deployment" {
				target = fmt.Sprintf("<= %d write %s", targetInstallRollouts, met(w.Total() <= targetInstallRollouts))
			}
			row("API writes", st.Name+": "+k, perf.Cell(w), "-", "-", "-", target)
		}
		row("API requests", st.Name, fmt.Sprintf("%d writes + %d syncs = %d", st.Stats.Total().Total(), st.Stats.SyncCount(), st.Requests()),
			"-", "-", "-", "-")
	}
}
