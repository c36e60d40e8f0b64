// Package report is the last stage of the Glance hook's sync: what the
// status says, from what was observed, decided and rendered. It reads the
// stages below it and nothing reads it but the hook.
package report

import (
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/excerpt"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
)

// podReasonOrder is the order reasons are reported in, most fundamental
// first: a pod that cannot be placed never gets to start, one that cannot
// start never gets to crash, and so on. The condition takes the first
// reason any pod has.
var podReasonOrder = []string{
	model.ReasonPodsUnschedulable, model.ReasonPodsNotStarting, model.ReasonPodsCrashLooping, model.ReasonPodsFailed, model.ReasonPodsNotReady,
}

// maxKubeletMessage bounds what a condition message shows of one message
// the kubelet, the scheduler or the container runtime wrote: enough for
// "couldn't find key password in Secret openstack/glance-service-user" or a
// scheduler's node count, not an unbounded runtime error.
const maxKubeletMessage = 200

// The waiting reasons a container passes through when all goes well. Any
// other waiting reason is the kubelet saying it cannot go on
// (CreateContainerConfigError, ErrImagePull, ImagePullBackOff,
// InvalidImageName, CreateContainerError, RunContainerError, ...), so a new
// one in a later kubelet counts as a problem too.
const (
	waitingContainerCreating = "ContainerCreating"
	waitingPodInitializing   = "PodInitializing"
	waitingCrashLoopBackOff  = "CrashLoopBackOff"
)

// PodDeadline says when a pod that is still starting counts as not
// starting, or a running pod that is not ready as not ready.
type PodDeadline struct {
	Now time.Time
	// After is how long a pod may take from its creation (the Deployment's
	// progressDeadlineSeconds; a schema Job's pod gets as long).
	After time.Duration
	// Passed is the workload controller's own verdict that its time is up
	// (the Deployment's ProgressDeadlineExceeded), for every pod at once.
	Passed bool
}

// PodsVerdict is what the pods of one workload show.
type PodsVerdict struct {
	// Reason is the first of podReasonOrder some pod has, "" when no pod
	// has a problem (yet).
	Reason string
	// Message has one part per reason, in podReasonOrder, each counting the
	// pods and naming one of them, so it is bounded whatever the number of
	// pods.
	Message string
	// Recheck is how long until a pod that is still starting reaches its
	// deadline, 0 when none is: nothing about the pod changes then, so only
	// a resync can notice.
	Recheck time.Duration
}

// podProblem is what keeps one pod from running.
type podProblem struct {
	reason string
	pod    string
	// detail names the container and says what the kubelet said, escaped.
	detail string
}

// SummarizePods reads the status of a workload's pods as the kubelet and the
// scheduler write it. Pods being deleted and pods that succeeded are not
// counted. A problem the kubelet or the scheduler reports (a waiting reason
// other than ContainerCreating and PodInitializing, CrashLoopBackOff, a
// failed pod, Unschedulable) counts at once; a pod that is merely slow
// (still creating its containers, running but not ready) counts only once
// the deadline passed, so a rollout that progresses is never reported as a
// failure.
func SummarizePods(pods []corev1.Pod, dl PodDeadline) PodsVerdict {
	// Per reason, how many pods and the first by name: the cost stays
	// one entry per reason whatever the number of pods.
	type tally struct {
		n     int
		first podProblem
	}
	byReason := map[string]*tally{}
	add := func(prob *podProblem) {
		t := byReason[prob.reason]
		if t == nil {
			byReason[prob.reason] = &tally{1, *prob}
			return
		}
		t.n++
		if prob.pod < t.first.pod {
			t.first = *prob
		}
	}
	counted := 0
	var v PodsVerdict
	for i := range pods {
		p := &pods[i]
		if p.DeletionTimestamp != nil || p.Status.Phase == corev1.PodSucceeded {
			continue
		}
		counted++
		if prob := diagnosePod(p, false); prob != nil {
			add(prob)
			continue
		}
		left := p.CreationTimestamp.Add(dl.After).Sub(dl.Now)
		slow := diagnosePod(p, true)
		switch {
		case slow == nil:
		case dl.Passed || left <= 0:
			add(slow)
		case v.Recheck == 0 || left < v.Recheck:
			v.Recheck = left
		}
	}
	var parts []string
	for _, reason := range podReasonOrder {
		t := byReason[reason]
		if t == nil {
			continue
		}
		if v.Reason == "" {
			v.Reason = reason
		}
		parts = append(parts, fmt.Sprintf("%d of %s %s: %s", t.n, hook.Plural(counted, "pod", "pods"),
			podVerb(reason, t.n), t.first.detail))
	}
	v.Message = strings.Join(parts, "; ")
	return v
}

// podVerb says what the counted pods do: "1 of 3 pods is crash-looping",
// "2 of 3 pods are crash-looping".
func podVerb(reason string, n int) string {
	verb := map[string][2]string{
		model.ReasonPodsUnschedulable: {"cannot be scheduled", "cannot be scheduled"},
		model.ReasonPodsNotStarting:   {"cannot start", "cannot start"},
		model.ReasonPodsCrashLooping:  {"is crash-looping", "are crash-looping"},
		model.ReasonPodsFailed:        {"failed", "failed"},
		model.ReasonPodsNotReady:      {"is not ready", "are not ready"},
	}[reason]
	if n == 1 {
		return verb[0]
	}
	return verb[1]
}

// problemFunc makes a podProblem of one pod.
type problemFunc func(reason, format string, args ...any) *podProblem

// diagnosePod says what keeps a pod from running, nil when nothing does
// (yet). slowCounts says whether a slow start counts.
func diagnosePod(p *corev1.Pod, slowCounts bool) *podProblem {
	name := excerpt.Name(p.Name)
	problem := func(reason, format string, args ...any) *podProblem {
		return &podProblem{reason: reason, pod: p.Name, detail: "pod " + name + fmt.Sprintf(format, args...)}
	}
	if p.Status.Phase == corev1.PodFailed {
		return failedPod(p, problem)
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
			return problem(model.ReasonPodsUnschedulable, ": %s", kubeletMessage(c.Message))
		}
	}
	if prob, atInit := diagnoseInit(p, slowCounts, problem); atInit {
		return prob
	}
	if prob := diagnoseContainers(p, slowCounts, problem); prob != nil {
		return prob
	}
	if len(p.Status.ContainerStatuses) == 0 && slowCounts {
		// Scheduled, or not even that, and no kubelet has reported
		// containers: kubectl describe pod shows the events.
		return problem(model.ReasonPodsNotStarting, " has no container started past the deadline (phase %s)", excerpt.Token(string(p.Status.Phase), excerpt.MaxKind))
	}
	return nil
}

// diagnoseInit reads the init containers. They run one after the other
// before the others start: the first that has not completed is where the
// pod is (atInit), and what it shows is the pod's problem, if any.
func diagnoseInit(p *corev1.Pod, slowCounts bool, problem problemFunc) (prob *podProblem, atInit bool) {
	for _, cs := range p.Status.InitContainerStatuses {
		if t := cs.State.Terminated; t != nil && t.ExitCode == 0 {
			continue
		}
		if prob := diagnoseContainer(&cs, "init container ", problem); prob != nil {
			return prob, true
		}
		if slowCounts {
			return problem(model.ReasonPodsNotStarting, " init container %s has not completed within the deadline", excerpt.Name(cs.Name)), true
		}
		return nil, true
	}
	return nil, false
}

// diagnoseContainers reads the containers: the first problem any of them
// has whatever the pod's age, else the first slow one when a slow start
// counts.
func diagnoseContainers(p *corev1.Pod, slowCounts bool, problem problemFunc) *podProblem {
	var slow *podProblem
	for _, cs := range p.Status.ContainerStatuses {
		if prob := diagnoseContainer(&cs, "container ", problem); prob != nil {
			return prob
		}
		if slow == nil && !cs.Ready && slowCounts {
			slow = slowContainer(&cs, problem)
		}
	}
	return slow
}

// slowContainer says how a container that is not ready past the deadline
// is slow.
func slowContainer(cs *corev1.ContainerStatus, problem problemFunc) *podProblem {
	switch {
	case cs.State.Running == nil:
		return problem(model.ReasonPodsNotStarting, " container %s is still %s past the deadline", excerpt.Name(cs.Name), waitingReason(cs))
	case cs.Started != nil && !*cs.Started:
		return problem(model.ReasonPodsNotReady, " container %s runs but its startup probe has not succeeded within the deadline", excerpt.Name(cs.Name))
	}
	return problem(model.ReasonPodsNotReady, " container %s runs but is not ready within the deadline", excerpt.Name(cs.Name))
}

// diagnoseContainer reports what the kubelet says about one container when
// it is a problem whatever the pod's age.
func diagnoseContainer(cs *corev1.ContainerStatus, what string, problem problemFunc) *podProblem {
	c := what + excerpt.Name(cs.Name)
	if w := cs.State.Waiting; w != nil {
		switch w.Reason {
		case "", waitingContainerCreating, waitingPodInitializing:
		case waitingCrashLoopBackOff:
			// Not the waiting message: it repeats the container and pod
			// and names a back-off that changes with every restart.
			return problem(model.ReasonPodsCrashLooping, " %s %s", c, restarts(cs))
		default:
			return problem(model.ReasonPodsNotStarting, " %s: %s: %s", c, excerpt.Token(w.Reason, excerpt.MaxKind), kubeletMessage(w.Message))
		}
	}
	// A container that exited and will be restarted (the pod did not fail):
	// the kubelet shows it terminated until it restarts it or backs off.
	if t := cs.State.Terminated; t != nil && t.ExitCode != 0 {
		return problem(model.ReasonPodsCrashLooping, " %s %s", c, restarts(cs))
	}
	// Running again after exiting, and not ready: the restarts are the
	// story, whether it is between two crashes or starting up once more.
	if cs.State.Running != nil && !cs.Ready && cs.RestartCount > 0 && cs.LastTerminationState.Terminated != nil {
		return problem(model.ReasonPodsCrashLooping, " %s %s", c, restarts(cs))
	}
	return nil
}

// failedPod reports a pod that ended: what the kubelet said about the pod
// (Evicted, DeadlineExceeded), else the first container that exited
// non-zero.
func failedPod(p *corev1.Pod, problem problemFunc) *podProblem {
	if p.Status.Reason != "" {
		return problem(model.ReasonPodsFailed, ": %s: %s", excerpt.Token(p.Status.Reason, excerpt.MaxKind), kubeletMessage(p.Status.Message))
	}
	statuses := append(append([]corev1.ContainerStatus(nil), p.Status.InitContainerStatuses...), p.Status.ContainerStatuses...)
	for i := range statuses {
		cs := &statuses[i]
		what := "container "
		if i < len(p.Status.InitContainerStatuses) {
			what = "init container "
		}
		if t := cs.State.Terminated; t != nil && t.ExitCode != 0 {
			return problem(model.ReasonPodsFailed, " %s%s %s", what, excerpt.Name(cs.Name), exit(t))
		}
	}
	return problem(model.ReasonPodsFailed, " failed (phase Failed)")
}

// restarts says how often a container restarted and how it last ended.
func restarts(cs *corev1.ContainerStatus) string {
	s := "restarted " + hook.Plural(int(cs.RestartCount), "time", "times")
	t := cs.LastTerminationState.Terminated
	if cs.State.Terminated != nil {
		t = cs.State.Terminated
	}
	if t != nil {
		s += ", last " + exit(t)
	}
	return s
}

// exit says how a container ended: "exited with code 1 (Error)". Not the
// termination message: the program in the container writes it (or it is
// its log's tail), so it may carry anything the program printed.
func exit(t *corev1.ContainerStateTerminated) string {
	s := fmt.Sprintf("exited with code %d", t.ExitCode)
	if t.Signal != 0 {
		s += fmt.Sprintf(" (signal %d)", t.Signal)
	}
	if t.Reason != "" {
		s += " (" + excerpt.Token(t.Reason, excerpt.MaxKind) + ")"
	}
	return s
}

// waitingReason is a container's waiting reason, "waiting" when it has none.
func waitingReason(cs *corev1.ContainerStatus) string {
	if w := cs.State.Waiting; w != nil && w.Reason != "" {
		return excerpt.Token(w.Reason, excerpt.MaxKind)
	}
	return "waiting"
}

// kubeletMessage is a message the kubelet, the scheduler or the runtime
// wrote, quoted, escaped and cut. It names objects (a Secret and its key,
// an image), never a value: the kubelet reads env values only to pass them
// on.
func kubeletMessage(m string) string {
	if m == "" {
		return "(no message)"
	}
	return excerpt.Quote(m, maxKubeletMessage)
}

// defaultProgressDeadline is the Deployment's progressDeadlineSeconds when
// the API server has not defaulted it (as in a request built by hand).
const defaultProgressDeadline = 600 * time.Second

// RolloutPods says what the pods of an unfinished rollout show. Their
// deadline is the Deployment's progressDeadlineSeconds from each pod's
// creation, or has passed for all of them once the Deployment controller
// reports ProgressDeadlineExceeded.
func RolloutPods(d *appsv1.Deployment, pods []corev1.Pod, now time.Time) PodsVerdict {
	dl := PodDeadline{Now: now, After: defaultProgressDeadline}
	if s := d.Spec.ProgressDeadlineSeconds; s != nil {
		dl.After = time.Duration(*s) * time.Second
	}
	var notCreated string
	for _, c := range d.Status.Conditions {
		switch {
		case c.Type == appsv1.DeploymentProgressing && c.Status == corev1.ConditionFalse && c.Reason == "ProgressDeadlineExceeded":
			dl.Passed = true
		case c.Type == appsv1.DeploymentReplicaFailure && c.Status == corev1.ConditionTrue:
			notCreated = "pods cannot be created: " + kubeletMessage(c.Message)
		}
	}
	v := SummarizePods(pods, dl)
	if notCreated != "" {
		// No pod can tell more than the refusal to create one.
		v.Reason = model.ReasonPodsNotCreated
		v.Message = strings.TrimSuffix(notCreated+"; "+v.Message, "; ")
	}
	return v
}

// ExplainRollout adds what the pods show to a DeploymentReady that waits for
// a rollout: their reason replaces WaitingForDeployment, their summary follows what
// it rolls out.
func ExplainRollout(c hook.Condition, pods PodsVerdict) hook.Condition {
	if c.Status || c.Reason != model.ReasonWaitingForDeployment || pods.Reason == "" {
		return c
	}
	c.Reason = pods.Reason
	c.Message += "; " + pods.Message
	return c
}

// ResyncAfter is Metacontroller's resyncAfterSeconds for the pods of some
// workloads: when the first pod still starting reaches its deadline, since
// nothing about such a pod changes then, so only a resync lets the hook say
// it did not start in time. 0 when no pod is still starting.
func ResyncAfter(verdicts ...PodsVerdict) int {
	var soonest time.Duration
	for _, v := range verdicts {
		if v.Recheck > 0 && (soonest == 0 || v.Recheck < soonest) {
			soonest = v.Recheck
		}
	}
	return int((soonest + time.Second - 1) / time.Second)
}

// SchemaPodDeadline is how long a schema Job's pod may take to get its
// containers going, and a step to finish, before a slow start counts: the
// Deployment's default progress deadline. glance-manage's steps take
// seconds to minutes once they run; one still waiting after that (for a
// database it cannot reach, say) is worth saying long before the Job's
// activeDeadlineSeconds ends it.
const SchemaPodDeadline = defaultProgressDeadline

// ExplainSchemaJob adds what the pods of the current step's Job show to
// DatabaseReady. While the Job runs, their reason replaces DBSyncInProgress
// or the upgrade step's (ExpandInProgress, ...; the message still names the
// Job and its step); once it failed, DBSyncFailed or the step's (ExpandFailed,
// ...) stays, and the pods' summary says how its pods ended.
func ExplainSchemaJob(c hook.Condition, pods PodsVerdict) hook.Condition {
	if c.Status || pods.Reason == "" {
		return c
	}
	switch {
	case c.Reason == model.ReasonDBSyncInProgress || model.UpgradeStepRunning(c.Reason):
		c.Reason = pods.Reason
	case c.Reason == model.ReasonDBSyncFailed || model.UpgradeStepFailed(c.Reason):
	default:
		return c
	}
	c.Message += "; " + pods.Message
	return c
}
