package datapath

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/hooks/glance"
	"github.com/c5c3/glance-hooks/test/glancestack"
	"github.com/c5c3/glance-hooks/test/proc"
)

// defaultStopRepeats is how many serving pods stopsUnderLoad stops per
// launch mode in `make test`: each stop needs a pod that has just loaded
// Glance (about 10 s on CI's 2 cores, longer beside the CPU hogs) and
// takes the rendered preStop sleep, so four stops per mode keep the test
// near a minute. GLANCE_STOP_REPEATS asks for more (the 50).
const defaultStopRepeats = 4

// stopRepeats is GLANCE_STOP_REPEATS or defaultStopRepeats.
func stopRepeats(t *testing.T) int {
	v := os.Getenv("GLANCE_STOP_REPEATS")
	if v == "" {
		return defaultStopRepeats
	}
	n, err := strconv.Atoi(v)
	require.NoError(t, err, "GLANCE_STOP_REPEATS")
	require.Positive(t, n, "GLANCE_STOP_REPEATS")
	return n
}

// stopsUnderLoad stops a serving glance-api pod of the stack's Deployment
// again and again, with two CPU hogs busy beside it, each time with an
// upload in flight, as the kubelet stops a pod: the rendered preStop
// sleep, SIGTERM, SIGKILL after the grace period. Every pod must exit 0 by
// itself within the rendered grace period, and every upload must end 204
// with its image active and its bytes downloadable through another pod.
//
// The upload is in flight (glance has set its image to saving) when the
// stop begins. Its rest comes as each mode promises to take it: the
// eventlet server's workers end at once on SIGTERM, so its requests must be
// done within the preStop sleep, and the rest is sent at once; uWSGI's
// workers finish their requests after SIGTERM, so the rest keeps coming
// until after the sleep, while the worker is being stopped.
func stopsUnderLoad(t *testing.T, st *glancestack.Stack) {
	n := stopRepeats(t)
	spec := st.Deployment(t).Spec.Template.Spec
	require.NotNil(t, spec.TerminationGracePeriodSeconds)
	grace := time.Duration(*spec.TerminationGracePeriodSeconds) * time.Second
	require.NotNil(t, spec.Containers[0].Lifecycle, "a preStop sleep is rendered")
	preStop := time.Duration(spec.Containers[0].Lifecycle.PreStop.Sleep.Seconds) * time.Second
	verify := st.Client(t, st.Pods()[0])
	stopHogs := cpuHogs(t, 2, time.Duration(n)*(grace+time.Minute))
	defer stopHogs()
	args := st.PodArgs()
	var took []time.Duration
	mode := glance.LaunchMode("")
	for i := range n {
		p := st.StartDrainingPod(t)
		p.WaitReady(t)
		mode = p.Mode
		data := randomBytes(uint64(100+i), 256<<10+i)
		timing := stopTiming{preStop: preStop}
		if i == 0 {
			// The first stop's watcher is slower than uWSGI's socket
			// timeout: the upload must stay in flight however long the
			// test takes to see it (it once did not: docs/stopping.md).
			timing.watchAfter = 2 * uwsgiSocketTimeout
		}
		d := stopWithUploadInFlight(t, st.Client(t, p), verify, p, data, timing)
		code, exited := p.ExitCode(p.Container)
		require.True(t, exited)
		require.Equal(t, 0, code, "stop %d of %d (%s): exit code after SIGTERM; the log ends:\n%s", i+1, n, p.Mode, tail(p))
		require.Less(t, d, grace, "stop %d of %d (%s) ends within the rendered grace period; the log ends:\n%s", i+1, n, p.Mode, tail(p))
		took = append(took, d)
	}
	p50, slowest := percentiles(took)
	t.Logf("%s%v: %d stops beside 2 CPU hogs, each with an upload in flight: all exited 0, every upload active and intact; "+
		"from the stop's start to the exit, the %s preStop sleep included: p50 %s, max %s (grace period %s); each: %s",
		mode, args, n, preStop, p50.Round(time.Millisecond), slowest.Round(time.Millisecond), grace, rounded(took))
}

// gracefulThreadsSince is the first uWSGI release whose graceful stop
// lets every thread of a worker finish its request: before 2.0.25 the
// worker that takes the signal cancels its other threads at once
// (pthread_cancel, asynchronous), requests included, and 2.0.25 and
// 2.0.26 join them without waking the idle ones, which then wait out the
// mercy. The image ships a later uWSGI; Debian 12's is 2.0.21.
var gracefulThreadsSince = [3]int{2, 0, 27}

// dayTwoPodArgs are the arguments the day-two stacks add to their pods of
// a launch mode, the pods running in root (this machine's system when
// empty): none, but one thread per process on a uWSGI older than
// gracefulThreadsSince, Debian 12's stack. Such a uWSGI has no other
// graceful stop, and Debian 12's glance hangs uploads in a worker of
// several threads (docs/stopping.md); the rest of the rendered uWSGI config
// runs as is.
func dayTwoPodArgs(t *testing.T, mode glance.LaunchMode, root string) []string {
	t.Helper()
	if mode != glance.UWSGI {
		return nil
	}
	cmd := exec.Command("uwsgi", "--version")
	if root != "" {
		cmd = exec.Command("chroot", root, "uwsgi", "--version")
	}
	out, err := cmd.Output()
	require.NoError(t, err, "uwsgi --version")
	v, ok := uwsgiVersion(string(out))
	require.True(t, ok, "uwsgi --version printed %q", out)
	if slices.Compare(v[:], gracefulThreadsSince[:]) >= 0 {
		return nil
	}
	return []string{"--threads", "1"}
}

// uwsgiVersion reads "2.0.21-debian" as 2, 0, 21.
func uwsgiVersion(s string) ([3]int, bool) {
	var v [3]int
	core, _, _ := strings.Cut(strings.TrimSpace(s), "-")
	parts := strings.Split(core, ".")
	if len(parts) < 3 {
		return v, false
	}
	for i := range v {
		n, err := strconv.Atoi(parts[i])
		if err != nil {
			return v, false
		}
		v[i] = n
	}
	return v, true
}

// percentiles are the median and the largest of durations, which must not
// be empty.
func percentiles(durations []time.Duration) (p50, largest time.Duration) {
	sorted := slices.Clone(durations)
	slices.Sort(sorted)
	return sorted[(len(sorted)-1)/2], sorted[len(sorted)-1]
}

// rounded lists durations to the millisecond, in their order.
func rounded(durations []time.Duration) string {
	out := make([]string, len(durations))
	for i, d := range durations {
		out[i] = d.Round(time.Millisecond).String()
	}
	return strings.Join(out, " ")
}

func tail(p *glancestack.Pod) string { return proc.LastLines(p.Logs(p.Container), 30) }

// uwsgiSocketTimeout is uWSGI's socket-timeout, which the rendered
// http-socket keeps at its default: a worker reading a request's body gives
// up once none of it came for this long ("[uwsgi-body-read] Timeout
// reading"), and glance puts the image back to queued and answers 500.
const uwsgiSocketTimeout = 4 * time.Second

// stopTiming is when stopWithUploadInFlight acts: the rendered preStop
// sleep, and how long after the upload began the test starts watching
// for its image's saving (0: at once).
type stopTiming struct {
	preStop, watchAfter time.Duration
}

// stopWithUploadInFlight uploads data through c in a request that is in
// flight when p's stop begins, and returns how long the stop took. The
// upload must answer 204 and the image must be active with data's bytes,
// read through verify (another pod).
func stopWithUploadInFlight(t *testing.T, c, verify *glancestack.Client, p *glancestack.Pod, data []byte, timing stopTiming) time.Duration {
	t.Helper()
	// A pod that serves has served uploads before: its worker has loaded
	// botocore's models and made its S3 client (seconds of CPU on a busy
	// machine, which the first upload of a fresh worker pays).
	code, body := c.Upload(t, c.CreateImage(t, "warm-up"), data[:4096], "")
	require.Equal(t, http.StatusNoContent, code, "a first upload through the new pod: %s", body)
	id := c.CreateImage(t, "in-flight")
	const head = 64 << 10
	spread := time.Duration(0)
	if p.Mode == glance.UWSGI {
		// Its workers finish their requests after SIGTERM: the rest keeps
		// coming, a piece at a time, until past the sleep.
		spread = timing.preStop + 2*time.Second
	}
	rest := make(chan struct{})
	answer := make(chan string, 1)
	go func() { answer <- upload(c, id, data, head, spread, rest) }()
	time.Sleep(timing.watchAfter)
	// Read through the other pod; a failure shows the log of the pod
	// the upload went to, what the upload met so far, what the pod logged
	// about it (did uWSGI give up waiting for the body?) and its sockets
	// (a request still waiting in the listen backlog?).
	watch := *verify
	watch.Logs = func() string {
		log := p.Logs(p.Container)
		return log + "\n" + uploadSoFar(answer) + "\n" + linesAbout(log, id, "[uwsgi-body-read]", "Failed to upload", "wsgi.input") + sockets(p.Addr("api"))
	}
	watch.WaitImage(t, id, "saving", 3*time.Minute)
	stopped := make(chan time.Duration, 1)
	go func() { stopped <- p.Stop(t) }()
	close(rest)
	took := <-stopped
	require.Equal(t, "204", <-answer, "the upload in flight when the %s pod stopped", p.Mode)
	img := verify.Image(t, id)
	require.Equal(t, "active", img.Status)
	require.True(t, bytes.Equal(data, verify.Download(t, id)), "image %s holds the bytes uploaded", id)
	return took
}

// uploadSoFar says whether the upload has answered yet, and what; the
// answer stays in the channel for its reader.
func uploadSoFar(answer chan string) string {
	select {
	case a := <-answer:
		answer <- a
		return "the upload answered: " + a
	default:
		return "the upload has not answered yet"
	}
}

// linesAbout are the lines of log that hold one of needles (what glance
// and uWSGI logged about one upload, which the log's tail may have lost).
func linesAbout(log string, needles ...string) string {
	var b strings.Builder
	b.WriteString("lines of the log about the upload:\n")
	for line := range strings.Lines(log) {
		if slices.ContainsFunc(needles, func(n string) bool { return strings.Contains(line, n) }) {
			b.WriteString(line)
		}
	}
	return b.String()
}

// sockets lists the listening socket at addr (Recv-Q: connections not
// yet accepted) and the connections to it, as ss prints them.
func sockets(addr string) string {
	listening, err := exec.Command("ss", "-ltn", "src", addr).CombinedOutput()
	if err != nil {
		return "ss: " + err.Error()
	}
	conns, err := exec.Command("ss", "-tn", "dst", addr).CombinedOutput()
	if err != nil {
		return "ss: " + err.Error()
	}
	return "sockets of " + addr + ":\n" + string(listening) + string(conns)
}

// uploadPiece is how much of an upload's rest upload writes at a time.
const uploadPiece = 16 << 10

// trickleEvery and tricklePiece are how an upload keeps its body coming
// while it waits to be let go on: a piece well within uWSGI's socket
// timeout, small enough that the body lasts minutes.
const (
	trickleEvery = time.Second
	tricklePiece = 512
)

// upload PUTs data as image id's file: its first head bytes at once, the
// rest once rest is closed, spread over spread. It returns the status
// code, or the error.
func upload(c *glancestack.Client, id string, data []byte, head int, spread time.Duration, rest <-chan struct{}) string {
	r, w := io.Pipe()
	go writeBody(w, data, head, spread, rest)
	req, err := http.NewRequest(http.MethodPut, c.URL+"/v2/images/"+id+"/file", r)
	if err != nil {
		return err.Error()
	}
	req.ContentLength = int64(len(data))
	req.Header.Set("Content-Type", "application/octet-stream")
	req.Header.Set("X-Auth-Token", c.Token)
	resp, err := (&http.Client{Timeout: 2 * time.Minute}).Do(req)
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusNoContent {
		return fmt.Sprintf("%d: %s", resp.StatusCode, body)
	}
	return "204"
}

// writeBody writes data to w: its first head bytes at once; until rest
// is closed a trickle, tricklePiece bytes every trickleEvery (at most half
// of what is left); then the rest in uploadPiece pieces spread evenly over
// spread, the first after a pause. It never pauses as long as uWSGI's
// socket timeout: a client streams its body, and a worker that waits that
// long for the next bytes ends the upload (the image back to queued). The
// test once held the whole rest until it saw saving, and lost the upload
// whenever seeing it took longer than the timeout.
func writeBody(w *io.PipeWriter, data []byte, head int, spread time.Duration, rest <-chan struct{}) {
	if _, err := w.Write(data[:head]); err != nil {
		return
	}
	off, budget := head, head+(len(data)-head)/2
	tick := time.NewTicker(trickleEvery)
	defer tick.Stop()
	for waiting := true; waiting; {
		select {
		case <-rest:
			waiting = false
		case <-tick.C:
			if off+tricklePiece > budget {
				continue
			}
			if _, err := w.Write(data[off : off+tricklePiece]); err != nil {
				return
			}
			off += tricklePiece
		}
	}
	pace := spread / time.Duration((len(data)-off)/uploadPiece+1)
	for ; off < len(data); off += uploadPiece {
		time.Sleep(pace)
		if _, err := w.Write(data[off:min(off+uploadPiece, len(data))]); err != nil {
			return
		}
	}
	_ = w.Close()
}

// cpuHogs starts n busy loops, each its own process, that end by
// themselves after at most lifetime; the returned func ends them sooner.
func cpuHogs(t *testing.T, n int, lifetime time.Duration) func() {
	t.Helper()
	var hogs []*exec.Cmd
	for range n {
		cmd := exec.Command("timeout", strconv.Itoa(int(lifetime.Seconds())), "sh", "-c", "while :; do :; done")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		require.NoError(t, cmd.Start())
		hogs = append(hogs, cmd)
	}
	stop := func() {
		for _, h := range hogs {
			if h.ProcessState == nil {
				_ = syscall.Kill(-h.Process.Pid, syscall.SIGKILL)
				_ = h.Wait()
			}
		}
	}
	t.Cleanup(stop)
	return stop
}

// uwsgiVersion reads what `uwsgi --version` prints, Debian's suffix
// included, and refuses what it cannot read rather than guess a release.
func TestUWSGIVersion(t *testing.T) {
	cases := map[string]struct {
		reason string
		in     string
		want   [3]int
		ok     bool
	}{
		"debian":  {"Debian 12's package", "2.0.21-debian\n", [3]int{2, 0, 21}, true},
		"pip":     {"a release from PyPI, as the image ships it", "2.0.31\n", [3]int{2, 0, 31}, true},
		"short":   {"two parts are not a release", "2.0\n", [3]int{}, false},
		"garbage": {"not a number", "x.y.z\n", [3]int{}, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, ok := uwsgiVersion(tc.in)
			if ok != tc.ok || (ok && got != tc.want) {
				t.Errorf("%s: uwsgiVersion(%q) = %v, %v; want %v, %v", tc.reason, tc.in, got, ok, tc.want, tc.ok)
			}
		})
	}
}

// An upload held back until the test sees its image saving keeps its body
// coming meanwhile: uWSGI ends a request none of whose body came for its
// socket timeout, and the test once lost its upload whenever it took that
// long to see saving (docs/stopping.md). Held longer than the timeout
// here, the writer must still never pause that long, and write every byte
// in order.
func TestWriteBodyNeverPausesAsLongAsUWSGI(t *testing.T) {
	t.Parallel()
	data := randomBytes(7, 100<<10+3)
	r, w := io.Pipe()
	rest := make(chan struct{})
	go writeBody(w, data, 4<<10, time.Second, rest)
	time.AfterFunc(uwsgiSocketTimeout+time.Second, func() { close(rest) })
	var got []byte
	longest, last := time.Duration(0), time.Now()
	buf := make([]byte, 64<<10)
	for {
		n, err := r.Read(buf)
		now := time.Now()
		longest, last = max(longest, now.Sub(last)), now
		got = append(got, buf[:n]...)
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
	}
	require.True(t, bytes.Equal(data, got), "the body arrives whole and in order")
	require.Less(t, longest, uwsgiSocketTimeout/2, "the longest pause between two writes")
}

// linesAbout keeps the lines that name what a failed upload left in the
// log, and only those.
func TestLinesAbout(t *testing.T) {
	log := "GET /healthcheck\n[uwsgi-body-read] Timeout reading 1 bytes\nPUT /v2/images/abc/file => 500\nGET /healthcheck"
	cases := map[string]struct {
		reason  string
		needles []string
		want    string
	}{
		"id":      {"the request line names the image", []string{"abc"}, "PUT /v2/images/abc/file => 500\n"},
		"both":    {"each line once, in the log's order", []string{"abc", "[uwsgi-body-read]"}, "[uwsgi-body-read] Timeout reading 1 bytes\nPUT /v2/images/abc/file => 500\n"},
		"nothing": {"no line names it", []string{"xyz"}, ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := strings.TrimPrefix(linesAbout(log, tc.needles...), "lines of the log about the upload:\n")
			require.Equal(t, tc.want, got, tc.reason)
		})
	}
}
