package glancestack

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/glance"
	"github.com/c5c3/glance-hooks/simulate/chain"
	"github.com/c5c3/glance-hooks/test/podrun"
	"github.com/c5c3/glance-hooks/test/proc"
)

// maxSteps bounds Reconcile: each step runs the Jobs due or moves the
// rollout one pod on.
const maxSteps = 40

// Pod is a glance-api pod of the stack.
type Pod struct {
	*podrun.Running
	// Container is the glance-api container's name.
	Container string
	// Image and Mode are what it runs: the image and the launch mode
	// (glance.Eventlet or glance.UWSGI, read from its command).
	Image string
	Mode  glance.LaunchMode
	// Ready is how long from its start until its probes passed.
	Ready time.Duration

	template string
}

// JobRun is a schema Job the stack ran.
type JobRun struct {
	Name string
	// Action is the step (sync, expand, migrate, contract).
	Action string
	Image  string
	// Pod is how its pod ended: each container's exit code and log.
	Pod *podrun.Completed
	// Took is from the pod's start until its last container exited.
	Took time.Duration
}

// Succeeded tells whether the Job's pod succeeded.
func (j JobRun) Succeeded() bool { return j.Pod.Succeeded() }

// Containers are the names of the containers that ran, in order.
func (j JobRun) Containers() []string {
	var out []string
	for _, r := range append(slices.Clone(j.Pod.Init), j.Pod.Containers...) {
		out = append(out, r.Name)
	}
	return out
}

// EventKind is what happened.
type EventKind string

const (
	JobSucceeded EventKind = "JobSucceeded"
	JobFailed    EventKind = "JobFailed"
	PodReady     EventKind = "PodReady"
	PodStopped   EventKind = "PodStopped"
)

// Event is one thing the stack did, in order.
type Event struct {
	Kind EventKind
	// Name is the Job's or the pod's.
	Name string
	// Action is a Job's step.
	Action string
	// Image is what the Job or pod ran, Mode a pod's launch mode.
	Image string
	Mode  glance.LaunchMode
	// Took: a Job from start to end, a pod from start to ready, or from
	// SIGTERM until every process of it was gone.
	Took time.Duration
	// ExitCode of a stopped pod's glance-api container (128+9 when the
	// grace period ran out and it was killed).
	ExitCode int
	// Log is a stopped pod's glance-api log, secrets masked.
	Log string
	// Phase is the Glance's status.upgrade.phase when it happened ("" with
	// no upgrade under way).
	Phase string
	// Running lists what the glance-api pods run right after it, one
	// "<image> <mode>" per pod, oldest first.
	Running []string
}

func (e Event) String() string {
	var s string
	switch e.Kind {
	case JobSucceeded, JobFailed:
		s = fmt.Sprintf("%s %s (%s, %s) in %s", e.Kind, e.Name, e.Action, e.Image, e.Took.Round(time.Millisecond))
	case PodStopped:
		s = fmt.Sprintf("%s %s (%s, %s) in %s, exit code %d", e.Kind, e.Name, e.Image, e.Mode, e.Took.Round(time.Millisecond), e.ExitCode)
	default:
		s = fmt.Sprintf("%s %s (%s, %s) in %s", e.Kind, e.Name, e.Image, e.Mode, e.Took.Round(time.Millisecond))
	}
	if e.Phase != "" {
		s += ", upgrade phase " + e.Phase
	}
	return s
}

// Reconcile does what the cluster would until nothing is left to do: the
// hooks converge; each schema Job they created runs for real and its
// outcome goes back to the World; glance-api pods of the Deployment's
// template start (one at a time, each ready before an old one stops, as
// maxSurge 1 and maxUnavailable 0 say) and the Deployment's status reports
// them. A Job that fails is reported, not retried: the hooks say what to do.
func (s *Stack) Reconcile(t testing.TB) {
	t.Helper()
	for range maxSteps {
		s.converge(t)
		if jobs := s.World.UnfinishedJobs(); len(jobs) > 0 {
			for _, r := range jobs {
				s.runJob(t, r)
			}
			continue
		}
		if s.rollStep(t) {
			continue
		}
		return
	}
	t.Fatalf("glancestack: not settled after %d steps; events so far:\n%s", maxSteps, s.describe())
}

func (s *Stack) converge(t testing.TB) {
	t.Helper()
	res, err := s.World.Run(s.controllers, 50)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Converged {
		t.Fatalf("the hooks did not converge in %d rounds", res.Rounds)
	}
}

// lifetime is a test's TB whose cleanups and temporary directories belong
// to the stack's test: a pod started from a subtest runs on after it, as a
// pod outlives a kubectl command. Failures still go to the subtest.
type lifetime struct {
	testing.TB
	owner testing.TB
}

func (l lifetime) Cleanup(f func()) { l.owner.Cleanup(f) }
func (l lifetime) TempDir() string  { return l.owner.TempDir() }

func (s *Stack) life(t testing.TB) testing.TB {
	if t == s.owner {
		return t
	}
	return lifetime{TB: t, owner: s.owner}
}

func (s *Stack) objects(t testing.TB) *podrun.Objects {
	t.Helper()
	return podrun.ObjectsOf(t, s.World.Objects())
}

// runJob runs a Job's pod to completion and reports how it ended.
func (s *Stack) runJob(t testing.TB, r chain.Ref) {
	t.Helper()
	obj, _ := s.World.Get(r)
	phase := s.phase()
	run := s.runJobPod(t, r.Name, obj)
	if err := s.World.FinishJob(r, run.Succeeded()); err != nil {
		t.Fatal(err)
	}
	kind := JobSucceeded
	if !run.Succeeded() {
		kind = JobFailed
		for _, c := range append(slices.Clone(run.Pod.Init), run.Pod.Containers...) {
			if c.ExitCode != 0 || c.TimedOut {
				t.Logf("Job %s: container %s exited %d (timed out: %t); its log ends:\n%s", r.Name, c.Name, c.ExitCode, c.TimedOut, proc.LastLines(c.Log, 30))
			}
		}
	}
	s.mu.Lock()
	s.jobs = append(s.jobs, run)
	s.mu.Unlock()
	s.record(Event{Kind: kind, Name: r.Name, Action: run.Action, Image: run.Image, Took: run.Took, Phase: phase})
}

// record appends an event with what the pods run after it, and returns it.
func (s *Stack) record(e Event) Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.pods {
		e.Running = append(e.Running, p.Image+" "+string(p.Mode))
	}
	s.events = append(s.events, e)
	return e
}

// phase is the Glance's upgrade phase now.
func (s *Stack) phase() string {
	o, ok := s.World.Get(chain.Ref{APIVersion: api.GlanceAPIVersion, Kind: api.KindGlance, Namespace: Namespace, Name: s.Glance})
	if !ok {
		return ""
	}
	st, _ := o["status"].(map[string]any)
	up, _ := st["upgrade"].(map[string]any)
	p, _ := up["phase"].(string)
	return p
}

// RunJobAgain runs the pod of a Job that ran before once more, as deleting
// and recreating it would, without telling the World.
func (s *Stack) RunJobAgain(t testing.TB, name string) JobRun {
	t.Helper()
	return s.runJobPod(t, name, s.Get(t, "batch/v1", "Job", name))
}

// runJobPod runs a Job's pod to completion.
func (s *Stack) runJobPod(t testing.TB, name string, job chain.Object) JobRun {
	t.Helper()
	pod := podrun.MustPodOf(t, job)
	began := time.Now()
	done := podrun.Run(s.life(t), pod, s.objects(t), s.optionsFor(pod, s.podOpts))
	return JobRun{Name: name, Action: pod.Labels[names.LabelSchemaAction], Image: imageOf(pod.Spec), Pod: done, Took: time.Since(began)}
}

// rollStep moves the pods one step towards the Deployment: it stops every
// pod when there is no Deployment, starts one pod of the current template
// (then stops one of an older template) while fewer than the replicas
// run it, stops surplus pods, and reports the Deployment's status. It
// tells whether it did anything.
func (s *Stack) rollStep(t testing.TB) bool {
	t.Helper()
	ref := chain.Ref{APIVersion: "apps/v1", Kind: "Deployment", Namespace: Namespace, Name: s.Glance}
	obj, ok := s.World.Get(ref)
	if !ok {
		if len(s.Pods()) == 0 {
			return false
		}
		for _, p := range s.Pods() {
			s.stopPod(t, p)
		}
		return true
	}
	want := specReplicas(obj)
	tpl := templateHash(obj)
	var current, old []*Pod
	for _, p := range s.Pods() {
		if p.template == tpl {
			current = append(current, p)
		} else {
			old = append(old, p)
		}
	}
	acted := true
	switch {
	case int64(len(current)) < want:
		s.startPod(t, obj)
		if len(old) > 0 {
			s.stopPod(t, old[0])
		}
	case int64(len(current)) > want:
		s.stopPod(t, current[len(current)-1])
	case len(old) > 0:
		s.stopPod(t, old[0])
	default:
		acted = false
	}
	updated, others := 0, 0
	for _, p := range s.Pods() {
		if p.template == tpl {
			updated++
		} else {
			others++
		}
	}
	if err := s.World.ReportRollout(ref, int64(updated), int64(others)); err != nil {
		t.Fatal(err)
	}
	return acted
}

// startPod starts a pod of the Deployment and waits until it is ready.
func (s *Stack) startPod(t testing.TB, deployment chain.Object) {
	t.Helper()
	p := s.launchPod(t, deployment)
	p.Ready = p.WaitReady(t)
	s.mu.Lock()
	s.pods = append(s.pods, p)
	if s.proxy != nil {
		s.proxy.Join(endpointOf(p))
	}
	s.mu.Unlock()
	s.record(Event{Kind: PodReady, Name: p.Pod.Name, Image: p.Image, Mode: p.Mode, Took: p.Ready, Phase: s.phase()})
}

// stopPod stops a pod as the kubelet does when the Deployment scales it
// away: out of the Service's endpoints, its preStop sleep, SIGTERM,
// SIGKILL after the grace period. It returns the PodStopped event.
func (s *Stack) stopPod(t testing.TB, p *Pod) Event {
	t.Helper()
	s.mu.Lock()
	if s.proxy != nil {
		s.proxy.Leave(endpointOf(p))
	}
	s.mu.Unlock()
	took := p.Stop(t)
	code, _ := p.ExitCode(p.Container)
	s.mu.Lock()
	s.pods = slices.DeleteFunc(s.pods, func(q *Pod) bool { return q == p })
	s.mu.Unlock()
	return s.record(Event{Kind: PodStopped, Name: p.Pod.Name, Image: p.Image, Mode: p.Mode, Took: took, ExitCode: code,
		Log: p.Logs(p.Container), Phase: s.phase()})
}

// Pods are the glance-api pods running now, oldest first.
func (s *Stack) Pods() []*Pod {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.pods)
}

// Jobs are the schema Jobs the stack ran, in order.
func (s *Stack) Jobs() []JobRun {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.jobs)
}

// Events are what the stack did, in order.
func (s *Stack) Events() []Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.events)
}

// TakeEvents returns the events since the last TakeEvents.
func (s *Stack) TakeEvents() []Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.events
	s.events = nil
	return out
}

func (s *Stack) describe() string {
	var lines []string
	for _, e := range s.Events() {
		lines = append(lines, "  "+e.String())
	}
	return strings.Join(lines, "\n")
}

// templateHash tells pod templates apart, as pod-template-hash does.
func templateHash(deployment chain.Object) string {
	spec, _ := deployment["spec"].(map[string]any)
	raw, _ := json.Marshal(spec["template"])
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:8])
}

func specReplicas(o chain.Object) int64 {
	spec, _ := o["spec"].(map[string]any)
	switch v := spec["replicas"].(type) {
	case float64:
		return int64(v)
	case int64:
		return v
	case int:
		return int64(v)
	case int32:
		return int64(v)
	}
	return 1
}

func glanceContainer(spec corev1.PodSpec) *corev1.Container {
	for i := range spec.Containers {
		if spec.Containers[i].Name == glance.ContainerName {
			return &spec.Containers[i]
		}
	}
	if len(spec.Containers) > 0 {
		return &spec.Containers[len(spec.Containers)-1]
	}
	return nil
}

func imageOf(spec corev1.PodSpec) string {
	if c := glanceContainer(spec); c != nil {
		return c.Image
	}
	return ""
}

// modeOf reads the launch mode from the glance-api container's command.
func modeOf(spec corev1.PodSpec) glance.LaunchMode {
	if c := glanceContainer(spec); c != nil && len(c.Command) > 0 && c.Command[0] == "uwsgi" {
		return glance.UWSGI
	}
	return glance.Eventlet
}

// StopPods stops every glance-api pod (SIGTERM, SIGKILL after the grace
// period) and returns their PodStopped events; the World is not told.
func (s *Stack) StopPods(t testing.TB) []Event {
	t.Helper()
	var out []Event
	for _, p := range s.Pods() {
		out = append(out, s.stopPod(t, p))
	}
	return out
}

// StartPod starts one more pod of the Deployment's current template and
// returns at once, without waiting for its probes: a pod just scheduled.
// It is not among Pods nor in the Deployment's status; the caller stops it
// (t's cleanup does otherwise).
func (s *Stack) StartPod(t testing.TB) *Pod {
	t.Helper()
	return s.launchPod(t, s.Get(t, "apps/v1", "Deployment", s.Glance))
}

// StartDrainingPod is StartPod for a pod whose stop sleeps the rendered
// preStop sleep whole before its SIGTERM, as the kubelet does (the
// stack's other pods sleep podrun's short default).
func (s *Stack) StartDrainingPod(t testing.TB) *Pod {
	t.Helper()
	o := s.podOpts
	o.MaxPreStopSleep = time.Minute
	return s.launchPodWith(t, s.Get(t, "apps/v1", "Deployment", s.Glance), o)
}

// AddPodArgs adds args after the rendered arguments of the glance-api
// container of every pod the stack starts from now on: what a test changes
// of the rendered pod to fit the software the stack runs (one thread per
// uWSGI process on Debian 12's packages, docs/stopping.md).
func (s *Stack) AddPodArgs(args ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.podArgs = append(s.podArgs, args...)
}

// PodArgs are the arguments AddPodArgs added.
func (s *Stack) PodArgs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.podArgs)
}

// optionsFor are opts for pod, in the system its image runs in
// (Options.ImageRoots).
func (s *Stack) optionsFor(pod podrun.Pod, opts podrun.Options) podrun.Options {
	if root, ok := s.imageRoots[imageOf(pod.Spec)]; ok {
		opts.Root = root
	}
	return opts
}

// launchPod starts a pod of the Deployment's template and returns at once.
func (s *Stack) launchPod(t testing.TB, deployment chain.Object) *Pod {
	t.Helper()
	return s.launchPodWith(t, deployment, s.podOpts)
}

func (s *Stack) launchPodWith(t testing.TB, deployment chain.Object, opts podrun.Options) *Pod {
	t.Helper()
	return s.runPod(t, podrun.MustPodOf(t, deployment), templateHash(deployment), opts)
}

// runPod starts pod, made from the Deployment template of the given
// hash, and returns at once.
func (s *Stack) runPod(t testing.TB, pod podrun.Pod, template string, opts podrun.Options) *Pod {
	t.Helper()
	s.mu.Lock()
	extra := slices.Clone(s.podArgs)
	s.mu.Unlock()
	// The container points into pod.Spec's slice, which the copy of the
	// spec glanceContainer gets shares.
	if c := glanceContainer(pod.Spec); c != nil && len(extra) > 0 {
		c.Args = append(slices.Clip(c.Args), extra...)
	}
	opts = s.optionsFor(pod, opts)
	s.matchSecureRBACSwitch(t, &pod, opts.Root)
	if modeOf(pod.Spec) == glance.UWSGI && opts.Root == "" {
		// The release runs under uWSGI from 2026.1 on, whose image has
		// the oslo.middleware that refuses the healthcheck as a filter.
		opts.ImageEnv = append(slices.Clip(opts.ImageEnv), "PYTHONPATH="+NewerOsloMiddleware(t))
	}
	r := podrun.Start(s.life(t), pod, s.objects(t), opts)
	return &Pod{Running: r, Container: glance.ContainerName, Image: imageOf(pod.Spec), Mode: modeOf(pod.Spec), template: template}
}
