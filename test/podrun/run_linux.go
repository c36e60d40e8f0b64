package podrun

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/c5c3/glance-hooks/test/proc"
)

// namespaces a container's process starts in. The network is the
// machine's: the pod's address is one of 127.0.0.0/8.
const namespaces = syscall.CLONE_NEWNS | syscall.CLONE_NEWUTS | syscall.CLONE_NEWIPC | syscall.CLONE_NEWPID

// namespacesOf are the namespaces of a pod's containers. With
// shareProcessNamespace the pod's pause process is PID 1 and a container's
// command is not: the kernel delivers it a signal it has no handler for
// (SIGTERM's default action ends it), where PID 1 would never see it. The
// command runs in the machine's PID namespace, which is not PID 1 either.
func namespacesOf(spec corev1.PodSpec) uintptr {
	if spec.ShareProcessNamespace != nil && *spec.ShareProcessNamespace {
		return namespaces &^ syscall.CLONE_NEWPID
	}
	return namespaces
}

// launchTimeout bounds how long setting up a container's namespaces may
// take before its command runs.
const launchTimeout = time.Minute

// Running is a pod whose long-lived containers run as processes.
type Running struct {
	Pod Pod
	// IP is the pod's address (status.podIP), a loopback address of its own.
	IP string
	// Dir holds the pod's volumes (volumes/<name>) and logs (logs/<container>.log).
	Dir string

	t       testing.TB
	objs    *Objects
	opts    Options
	status  Status
	claim   *claimedIP
	vols    map[string]*volume
	files   map[string]string
	redact  *proc.Redactor
	grace   time.Duration
	inits   []Result
	started time.Time

	mu         sync.Mutex
	containers []*container
	events     []string
	monitor    chan struct{}
	monitored  sync.WaitGroup
	stopped    bool
	reported   bool
}

type container struct {
	spec    corev1.Container
	launch  *launchSpec
	proc    *proc.Process
	started time.Time
	ready   bool
	// startupPassed is set once the startup probe (if any) succeeded.
	startupPassed bool
	failures      int
}

// Result is how a container that ran to completion ended.
type Result struct {
	Name     string
	ExitCode int
	// Log is its output, secrets masked.
	Log      string
	Duration time.Duration
	// TimedOut is set when it was stopped at the deadline.
	TimedOut bool
}

// Completed is a pod that ran to completion, as a Job's pod does.
type Completed struct {
	Pod        Pod
	IP         string
	Init       []Result
	Containers []Result
}

// Succeeded tells whether every container (init containers included)
// exited 0, the pod phase a Job counts.
func (c *Completed) Succeeded() bool {
	for _, r := range append(append([]Result{}, c.Init...), c.Containers...) {
		if r.ExitCode != 0 || r.TimedOut {
			return false
		}
	}
	return len(c.Containers) > 0
}

// Result returns a container's result by name.
func (c *Completed) Result(name string) (Result, bool) {
	for _, r := range append(append([]Result{}, c.Init...), c.Containers...) {
		if r.Name == name {
			return r, true
		}
	}
	return Result{}, false
}

// Start runs a pod as the kubelet would: it claims a loopback address for
// it, writes its volumes, runs its init containers in order (each must exit
// 0; a restartPolicy Always init container keeps running, as a sidecar,
// once its startup probe passed), then starts its containers. It does not
// wait for readiness: WaitReady does. t's cleanup stops whatever runs.
func Start(t testing.TB, pod Pod, objs *Objects, o Options) *Running {
	t.Helper()
	r := prepare(t, pod, objs, o)
	for i := range pod.Spec.InitContainers {
		ctr := &pod.Spec.InitContainers[i]
		if ctr.RestartPolicy != nil && *ctr.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			c := r.startLongLived(t, ctr)
			if ctr.StartupProbe != nil {
				if err := r.waitStartup(c, time.Now().Add(r.opts.Timeout)); err != nil {
					t.Fatal(err)
				}
			}
			continue
		}
		res := r.runToCompletion(t, []*corev1.Container{ctr}, time.Now().Add(r.opts.Timeout))[0]
		r.inits = append(r.inits, res)
		if res.ExitCode != 0 || res.TimedOut {
			t.Fatalf("pod %s: init container %s failed (exit code %d); its log:\n%s", pod.Name, ctr.Name, res.ExitCode, proc.LastLines(res.Log, 40))
		}
	}
	r.started = time.Now()
	for i := range pod.Spec.Containers {
		r.startLongLived(t, &pod.Spec.Containers[i])
	}
	return r
}

// StartReady is Start, then WaitReady.
func StartReady(t testing.TB, pod Pod, objs *Objects, o Options) *Running {
	t.Helper()
	r := Start(t, pod, objs, o)
	r.WaitReady(t)
	return r
}

// Run runs a pod to completion, as a Job's pod: init containers in order,
// then its containers until all have exited, within activeDeadlineSeconds
// or Options.Timeout, whichever is shorter. A failing init container ends
// the pod there. Exit codes and logs are in the result; only what keeps the
// pod from being run at all fails the test.
func Run(t testing.TB, pod Pod, objs *Objects, o Options) *Completed {
	t.Helper()
	r := prepare(t, pod, objs, o)
	deadline := time.Now().Add(r.opts.Timeout)
	if d := pod.Spec.ActiveDeadlineSeconds; d != nil && time.Duration(*d)*time.Second < r.opts.Timeout {
		deadline = time.Now().Add(time.Duration(*d) * time.Second)
	}
	out := &Completed{Pod: pod, IP: r.IP}
	for i := range pod.Spec.InitContainers {
		res := r.runToCompletion(t, []*corev1.Container{&pod.Spec.InitContainers[i]}, deadline)[0]
		out.Init = append(out.Init, res)
		if res.ExitCode != 0 || res.TimedOut {
			return out
		}
	}
	ctrs := make([]*corev1.Container, len(pod.Spec.Containers))
	for i := range pod.Spec.Containers {
		ctrs[i] = &pod.Spec.Containers[i]
	}
	out.Containers = r.runToCompletion(t, ctrs, deadline)
	r.release()
	return out
}

// prepare is what the kubelet does before a pod's first container: it
// claims the pod's address, writes its volumes and its /etc/hosts and
// /etc/hostname, and learns the secrets to mask in its logs.
func prepare(t testing.TB, pod Pod, objs *Objects, o Options) *Running {
	t.Helper()
	if os.Geteuid() != 0 {
		proc.Missing(t, "root", "podrun needs root for mount namespaces; run the tests as root")
	}
	if objs == nil {
		objs = ObjectsOf(t)
	}
	o = o.withDefaults()
	claim, err := claimIP(containerPorts(pod.Spec))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	r := &Running{Pod: pod, IP: claim.IP, Dir: dir, t: t, objs: objs, opts: o, claim: claim,
		status: Status{PodIP: claim.IP, HostIP: "127.0.0.1", NodeName: "localhost"}, redact: &proc.Redactor{}}
	t.Cleanup(func() { r.stopAll(); r.reportLiveness(t); r.release() })
	r.grace = 30 * time.Second
	if g := pod.Spec.TerminationGracePeriodSeconds; g != nil {
		r.grace = time.Duration(*g) * time.Second
	}
	r.grace = min(r.grace, o.MaxGracePeriod)
	for _, d := range []string{"volumes", "logs", "etc", "scratch"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	vols, secrets, err := materialize(pod, objs, r.status, filepath.Join(dir, "volumes"))
	if err != nil {
		t.Fatalf("pod %s: %v", pod.Name, err)
	}
	r.vols = vols
	r.redact.Add(append(secrets, o.Redact...)...)
	// Every Secret value the env can read is masked too.
	r.redact.Add(envSecrets(pod, objs)...)
	r.writePodFiles(t)
	return r
}

// containerPorts are the ports every container of the pod listens on.
func containerPorts(spec corev1.PodSpec) []int {
	var ports []int
	for _, list := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
		for _, c := range list {
			for _, p := range c.Ports {
				ports = append(ports, int(p.ContainerPort))
			}
		}
	}
	return ports
}

// envSecrets are the Secret values the pod's containers can read into
// their environment.
func envSecrets(pod Pod, objs *Objects) []string {
	var out []string
	for _, list := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for _, c := range list {
			for _, e := range c.Env {
				if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
					if data, ok := objs.secret(pod.Namespace, e.ValueFrom.SecretKeyRef.Name); ok {
						out = append(out, string(data[e.ValueFrom.SecretKeyRef.Key]))
					}
				}
			}
			for _, src := range c.EnvFrom {
				if src.SecretRef != nil {
					data, _ := objs.secret(pod.Namespace, src.SecretRef.Name)
					for _, v := range data {
						out = append(out, string(v))
					}
				}
			}
		}
	}
	return out
}

// writePodFiles writes the kubelet's /etc/hosts and /etc/hostname for the
// pod.
func (r *Running) writePodFiles(t testing.TB) {
	t.Helper()
	hosts := fmt.Sprintf("# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n%s\t%s\n", r.IP, r.Pod.Name)
	for _, name := range slices.Sorted(maps.Keys(r.opts.ClusterDNS)) {
		hosts += r.opts.ClusterDNS[name] + "\t" + name + "\n"
	}
	r.files = map[string]string{"/etc/hosts": filepath.Join(r.Dir, "etc", "hosts"), "/etc/hostname": filepath.Join(r.Dir, "etc", "hostname")}
	if err := os.WriteFile(r.files["/etc/hosts"], []byte(hosts), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(r.files["/etc/hostname"], []byte(r.Pod.Name+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (r *Running) release() { r.claim.release() }

// launchContainer starts a container's process through the launcher.
func (r *Running) launchContainer(t testing.TB, ctr *corev1.Container) (*container, error) {
	t.Helper()
	in := podInputs{pod: r.Pod, objs: r.objs, st: r.status, vols: r.vols, files: r.files, opts: r.opts}
	spec, err := planContainer(in, ctr, filepath.Join(r.Dir, "scratch", ctr.Name))
	if err != nil {
		return nil, fmt.Errorf("pod %s: %w", r.Pod.Name, err)
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	specR, specW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	statusR, statusW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer statusR.Close()
	p := proc.Start(t, proc.Options{
		Name: "container " + ctr.Name + " of pod " + r.Pod.Name, Argv: []string{exe}, Env: []string{launchEnv + "=1"},
		Dir: "/", Log: filepath.Join(r.Dir, "logs", ctr.Name+".log"), Redactor: r.redact,
		ExtraFiles: []*os.File{specR, statusW}, Cloneflags: namespacesOf(r.Pod.Spec), GracePeriod: r.grace,
	})
	specR.Close()
	statusW.Close()
	c := &container{spec: *ctr, launch: spec, proc: p, started: time.Now()}
	if err := json.NewEncoder(specW).Encode(spec); err != nil {
		specW.Close()
		return c, fmt.Errorf("container %s: handing over its spec: %w (log: %s)", ctr.Name, err, p.Tail(10))
	}
	specW.Close()
	_ = statusR.SetReadDeadline(time.Now().Add(launchTimeout))
	msg, err := io.ReadAll(statusR)
	if err != nil {
		return c, fmt.Errorf("container %s: no sign of its start within %s: %w", ctr.Name, launchTimeout, err)
	}
	if len(msg) > 0 {
		<-p.Done()
		return c, fmt.Errorf("container %s of pod %s: %s", ctr.Name, r.Pod.Name, r.redact.Redact(strings.TrimSpace(string(msg))))
	}
	return c, nil
}

func (r *Running) startLongLived(t testing.TB, ctr *corev1.Container) *container {
	t.Helper()
	c, err := r.launchContainer(t, ctr)
	// Cleanups run last-registered first: this one, after the process's
	// own, stops the probes before any container gets SIGTERM, so a pod
	// the test did not stop is not reported for the probes its shutdown
	// fails, and stops all its containers at once, as the kubelet does.
	t.Cleanup(r.stopAll)
	if err != nil {
		t.Fatal(err)
	}
	r.mu.Lock()
	r.containers = append(r.containers, c)
	r.mu.Unlock()
	return c
}

// runToCompletion starts containers together and waits for all of them
// to exit, stopping those still running at the deadline.
func (r *Running) runToCompletion(t testing.TB, ctrs []*corev1.Container, deadline time.Time) []Result {
	t.Helper()
	out := make([]Result, len(ctrs))
	started := make([]*container, len(ctrs))
	for i, ctr := range ctrs {
		c, err := r.launchContainer(t, ctr)
		out[i].Name = ctr.Name
		if err != nil && c == nil {
			t.Fatal(err)
		}
		started[i] = c
	}
	for i, c := range started {
		if err := c.proc.Wait(time.Until(deadline)); err != nil {
			out[i].TimedOut = true
			_ = c.proc.Stop()
		}
		out[i].ExitCode = c.proc.ExitCode()
		out[i].Log = c.proc.Log()
		out[i].Duration = time.Since(c.started)
	}
	return out
}

// WaitReady waits until every container's startup probe passed and its
// readiness probe passes (a container without probes counts once it
// runs), within Options.Timeout; it fails the test when a container exits
// or a startup probe runs out of its budget. It returns how long since the
// containers started that took, and keeps probing in the background.
func (r *Running) WaitReady(t testing.TB) time.Duration {
	t.Helper()
	deadline := time.Now().Add(r.opts.Timeout)
	for _, c := range r.snapshot() {
		if err := r.waitStartup(c, deadline); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range r.snapshot() {
		if err := r.waitProbe(c, c.spec.ReadinessProbe, "readiness", deadline); err != nil {
			t.Fatal(err)
		}
		r.mu.Lock()
		c.ready = true
		r.mu.Unlock()
	}
	took := time.Since(r.started)
	r.startMonitor()
	return took
}

func (r *Running) snapshot() []*container {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.containers)
}

func (r *Running) waitStartup(c *container, deadline time.Time) error {
	if c.spec.StartupProbe != nil {
		budget := c.started.Add(probeBudget(c.spec.StartupProbe))
		if budget.Before(deadline) {
			deadline = budget
		}
		if err := r.waitProbe(c, c.spec.StartupProbe, "startup", deadline); err != nil {
			return err
		}
	}
	r.mu.Lock()
	c.startupPassed = true
	r.mu.Unlock()
	return nil
}

// waitProbe tries a probe every ProbeInterval, after its initial delay,
// until it passes.
func (r *Running) waitProbe(c *container, p *corev1.Probe, kind string, deadline time.Time) error {
	if p == nil {
		if c.proc.Exited() {
			return r.exitedError(c)
		}
		return nil
	}
	if delay := c.started.Add(time.Duration(p.InitialDelaySeconds) * time.Second); time.Now().Before(delay) {
		time.Sleep(time.Until(delay))
	}
	for {
		if c.proc.Exited() {
			return r.exitedError(c)
		}
		err := probeOnce(p, &c.spec, r.IP)
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("pod %s: the %s probe of container %s did not pass within %s (last: %v); its log ends:\n%s",
				r.Pod.Name, kind, c.spec.Name, time.Since(c.started).Round(time.Second), err, c.proc.Tail(40))
		}
		time.Sleep(r.opts.ProbeInterval)
	}
}

func (r *Running) exitedError(c *container) error {
	return fmt.Errorf("pod %s: container %s exited with code %d; its log ends:\n%s", r.Pod.Name, c.spec.Name, c.proc.ExitCode(), c.proc.Tail(40))
}

// startMonitor keeps probing readiness and liveness, as the kubelet does,
// and records what fails as events.
func (r *Running) startMonitor() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.monitor != nil || r.stopped {
		return
	}
	r.monitor = make(chan struct{})
	r.monitored.Add(1)
	go func() {
		defer r.monitored.Done()
		tick := time.NewTicker(r.opts.ProbeInterval)
		defer tick.Stop()
		exited := map[*container]bool{}
		for {
			select {
			case <-r.monitor:
				return
			case <-tick.C:
			}
			for _, c := range r.snapshot() {
				if c.proc.Exited() {
					if !exited[c] {
						exited[c] = true
						r.event(fmt.Sprintf("container %s exited with code %d", c.spec.Name, c.proc.ExitCode()))
					}
					r.setReady(c, false)
					continue
				}
				if p := c.spec.ReadinessProbe; p != nil {
					r.setReady(c, probeOnce(p, &c.spec, r.IP) == nil)
				}
				if p := c.spec.LivenessProbe; p != nil {
					if err := probeOnce(p, &c.spec, r.IP); err != nil {
						c.failures++
						threshold := p.FailureThreshold
						if threshold <= 0 {
							threshold = 3
						}
						if c.failures == int(threshold) {
							r.event(fmt.Sprintf("container %s failed its liveness probe %d times (the kubelet would restart it): %v", c.spec.Name, threshold, err))
						}
					} else {
						c.failures = 0
					}
				}
			}
		}
	}()
}

func (r *Running) setReady(c *container, ready bool) {
	r.mu.Lock()
	c.ready = ready
	r.mu.Unlock()
}

func (r *Running) event(e string) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

// Ready tells whether every container is ready now (as the kubelet's
// readiness would put the pod behind its Service).
func (r *Running) Ready() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.containers {
		if !c.ready || c.proc.Exited() {
			return false
		}
	}
	return len(r.containers) > 0
}

// Events are what went wrong after the pod was ready: containers that
// exited, liveness probes that failed.
func (r *Running) Events() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

// ExitCode is a long-lived container's exit code, once it has exited.
func (r *Running) ExitCode(name string) (int, bool) {
	for _, c := range r.snapshot() {
		if c.spec.Name == name && c.proc.Exited() {
			return c.proc.ExitCode(), true
		}
	}
	return 0, false
}

// Inits are the results of the init containers that ran to completion.
func (r *Running) Inits() []Result { return slices.Clone(r.inits) }

// Addr is IP:port for a container port given by name or number.
func (r *Running) Addr(port string) string {
	for _, list := range [][]corev1.Container{r.Pod.Spec.Containers, r.Pod.Spec.InitContainers} {
		for _, c := range list {
			for _, p := range c.Ports {
				if p.Name == port || strconv.Itoa(int(p.ContainerPort)) == port {
					return r.IP + ":" + strconv.Itoa(int(p.ContainerPort))
				}
			}
		}
	}
	r.t.Fatalf("pod %s has no container port %q", r.Pod.Name, port)
	return ""
}

// URL is http://IP:port for a container port given by name or number.
func (r *Running) URL(port string) string { return "http://" + r.Addr(port) }

// Logs is a container's output so far, secrets masked.
func (r *Running) Logs(name string) string {
	b, err := os.ReadFile(filepath.Join(r.Dir, "logs", name+".log"))
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	return r.redact.Redact(string(b))
}

// Redactor masks the pod's secrets; tests add their own to it.
func (r *Running) Redactor() *proc.Redactor { return r.redact }

// HostPath is where a path a container sees is on this machine, for a path
// inside one of its volume mounts.
func (r *Running) HostPath(containerName, containerPath string) (string, error) {
	for _, c := range r.snapshot() {
		if c.spec.Name != containerName {
			continue
		}
		best := ""
		var src string
		for _, m := range c.launch.Mounts {
			if (containerPath == m.Target || strings.HasPrefix(containerPath, m.Target+"/")) && len(m.Target) > len(best) {
				best, src = m.Target, m.Source
			}
		}
		if best == "" {
			return "", fmt.Errorf("%s is not in a volume of container %s", containerPath, containerName)
		}
		return filepath.Join(src, filepath.FromSlash(strings.TrimPrefix(path.Clean(containerPath), best))), nil
	}
	return "", fmt.Errorf("pod %s has no running container %s", r.Pod.Name, containerName)
}

// Stop ends the pod as the kubelet does: each container's preStop sleep
// (capped by Options.MaxPreStopSleep), then SIGTERM to it, every container
// at once, SIGKILL after the grace period (terminationGracePeriodSeconds,
// capped by Options.MaxGracePeriod; it counts from the SIGTERM, where the
// kubelet's counts from the preStop's start). It returns how long that took, and
// fails the test if a liveness probe failed while the pod ran.
func (r *Running) Stop(t testing.TB) time.Duration {
	t.Helper()
	began := time.Now()
	r.stopAll()
	took := time.Since(began)
	r.reportLiveness(t)
	r.release()
	return took
}

// reportLiveness fails the test, once, for every liveness probe that failed
// while the pod ran: the kubelet would have restarted the container.
func (r *Running) reportLiveness(t testing.TB) {
	t.Helper()
	r.mu.Lock()
	done := r.reported
	r.reported = true
	r.mu.Unlock()
	if done {
		return
	}
	for _, e := range r.Events() {
		if strings.Contains(e, "liveness") {
			t.Errorf("pod %s: %s", r.Pod.Name, e)
		}
	}
}

func (r *Running) stopAll() {
	r.mu.Lock()
	if r.stopped {
		r.mu.Unlock()
		return
	}
	r.stopped = true
	if r.monitor != nil {
		close(r.monitor)
	}
	ctrs := slices.Clone(r.containers)
	r.mu.Unlock()
	r.monitored.Wait()
	var wg sync.WaitGroup
	for _, c := range ctrs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(r.preStopSleep(c))
			if err := c.proc.Stop(); err != nil {
				r.event(err.Error())
			}
		}()
	}
	wg.Wait()
}

// preStopSleep is how long a container sleeps before its SIGTERM: its
// preStop sleep action, capped by Options.MaxPreStopSleep; 0 without one.
func (r *Running) preStopSleep(c *container) time.Duration {
	l := c.spec.Lifecycle
	if l == nil || l.PreStop == nil || l.PreStop.Sleep == nil || c.proc.Exited() {
		return 0
	}
	return min(time.Duration(l.PreStop.Sleep.Seconds)*time.Second, r.opts.MaxPreStopSleep)
}
