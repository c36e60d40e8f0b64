package glance

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/c5c3/glance-hooks/hooks/glance/model"
	"github.com/c5c3/glance-hooks/hooks/glance/render"
	"github.com/c5c3/glance-hooks/hooks/glance/report"
	"github.com/c5c3/glance-hooks/test/kubeletstatus"
)

// podsNow is the clock of these tests; pods are created minutes before it.
var podsNow = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// kubeletPod is a pod of the glance Deployment created age before podsNow,
// with a status in the shape a kubelet writes it (test/kubeletstatus),
// changed by edits for the variants a case needs.
func kubeletPod(t *testing.T, name string, age time.Duration, status string, edits ...func(*corev1.PodStatus)) corev1.Pod {
	t.Helper()
	var p corev1.Pod
	p.Name = name
	p.CreationTimestamp.Time = podsNow.Add(-age)
	raw, err := kubeletstatus.Render(status, kubeletstatus.Pod{Name: name, Namespace: "openstack",
		UID: "0f3b6f3e-7f3c-4a5e-9a51-0d1f0a2b3c4d", Container: render.ContainerName, Image: "ghcr.io/c5c3/glance:2025.2",
		InitContainer: "db-sync", Created: p.CreationTimestamp.Time, QOSClass: corev1.PodQOSBurstable})
	require.NoError(t, err)
	require.NoError(t, yaml.UnmarshalStrict(raw, &p.Status), status)
	for _, edit := range edits {
		edit(&p.Status)
	}
	return p
}

// waiting sets the first container's waiting reason and message.
func waiting(reason, message string) func(*corev1.PodStatus) {
	return func(st *corev1.PodStatus) {
		st.ContainerStatuses[0].State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: message}}
	}
}

// state sets the first container's state.
func state(s corev1.ContainerState) func(*corev1.PodStatus) {
	return func(st *corev1.PodStatus) { st.ContainerStatuses[0].State = s }
}

// jobPod is the status of a schema Job's pod: an init container, then
// the container that runs once it completed.
func jobPod(init, main corev1.ContainerState) func(*corev1.PodStatus) {
	return func(st *corev1.PodStatus) {
		st.InitContainerStatuses = []corev1.ContainerStatus{{Name: "db-sync", Image: "x", State: init}}
		st.ContainerStatuses = []corev1.ContainerStatus{{Name: "load-metadefs", Image: "x", State: main}}
	}
}

func TestSummarizePods(t *testing.T) {
	const configError = `CreateContainerConfigError: "couldn't find key password in Secret openstack/glance-service-user"`
	type want struct {
		reason, message string
		recheck         time.Duration
	}
	cases := map[string]struct {
		reason string
		pods   func(t *testing.T) []corev1.Pod
		passed bool
		want   want
	}{
		"NoPods": {
			reason: "no pod yet: nothing to say, nothing to wait for",
			pods:   func(t *testing.T) []corev1.Pod { return nil },
		},
		"CreateContainerConfigError": {
			reason: "a key missing from the Secret an env var reads: the kubelet's reason and message, at once, whatever the pod's age",
			pods: func(t *testing.T) []corev1.Pod {
				return []corev1.Pod{kubeletPod(t, "glance-7c9d8f6b5-x2x4k", time.Minute, "create-container-config-error")}
			},
			want: want{reason: model.ReasonPodsNotStarting, message: `1 of 1 pod cannot start: pod "glance-7c9d8f6b5-x2x4k" container "glance-api": ` + configError},
		},
		"SecretNotFound": {
			reason: "the quotes of the kubelet's message are escaped, not taken for the end of the excerpt",
			pods: func(t *testing.T) []corev1.Pod {
				return []corev1.Pod{kubeletPod(t, "p", time.Minute, "create-container-config-error",
					waiting("CreateContainerConfigError", `secret "glance-service-user" not found`))}
			},
			want: want{reason: model.ReasonPodsNotStarting, message: `1 of 1 pod cannot start: pod "p" container "glance-api": ` +
				`CreateContainerConfigError: "secret \"glance-service-user\" not found"`},
		},
		"ImagePullBackOff": {
			reason: "an image that cannot be pulled",
			pods: func(t *testing.T) []corev1.Pod {
				return []corev1.Pod{kubeletPod(t, "p", time.Minute, "image-pull-backoff")}
			},
			want: want{reason: model.ReasonPodsNotStarting, message: `1 of 1 pod cannot start: pod "p" container "glance-api": ` +
				`ImagePullBackOff: "Back-off pulling image \"ghcr.io/c5c3/glance:2025.2\""`},
		},
		"UnknownWaitingReason": {
			reason: "a waiting reason a later kubelet may add is a problem too; an empty message says so",
			pods: func(t *testing.T) []corev1.Pod {
				return []corev1.Pod{kubeletPod(t, "p", time.Minute, "create-container-config-error", waiting("SomeNewError", ""))}
			},
			want: want{reason: model.ReasonPodsNotStarting, message: `1 of 1 pod cannot start: pod "p" container "glance-api": SomeNewError: (no message)`},
		},
		"CrashLoopBackOff": {
			reason: "restarts and the last exit, not the back-off message (it changes with every restart)",
			pods: func(t *testing.T) []corev1.Pod {
				return []corev1.Pod{kubeletPod(t, "glance-7c9d8f6b5-x2x4k", 5*time.Minute, "crash-loop-backoff")}
			},
			want: want{reason: model.ReasonPodsCrashLooping, message: `1 of 1 pod is crash-looping: pod "glance-7c9d8f6b5-x2x4k" container "glance-api" ` +
				`restarted 4 times, last exited with code 1 (Error)`},
		},
		"ExitedBeforeBackOff": {
			reason: "between an exit and the back-off the kubelet shows the container terminated",
			pods: func(t *testing.T) []corev1.Pod {
				return []corev1.Pod{kubeletPod(t, "p", time.Minute, "running-not-ready",
					state(corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 2, Reason: "Error"}}))}
			},
			want: want{reason: model.ReasonPodsCrashLooping, message: `1 of 1 pod is crash-looping: pod "p" container "glance-api" restarted 0 times, last exited with code 2 (Error)`},
		},
		"RunningAgainAfterExit": {
			reason: "running again after exits and not ready: still crash-looping, so the reason does not flip with every restart",
			pods: func(t *testing.T) []corev1.Pod {
				return []corev1.Pod{kubeletPod(t, "p", time.Minute, "crash-loop-backoff",
					state(corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}))}
			},
			want: want{reason: model.ReasonPodsCrashLooping, message: `1 of 1 pod is crash-looping: pod "p" container "glance-api" restarted 4 times, last exited with code 1 (Error)`},
		},
		"ReadyAfterAnOldRestart": {
			reason: "a ready container that restarted once long ago is fine",
			pods: func(t *testing.T) []corev1.Pod {
				return []corev1.Pod{kubeletPod(t, "p", 5*time.Hour, "ready", func(st *corev1.PodStatus) {
					st.ContainerStatuses[0].RestartCount = 1
					st.ContainerStatuses[0].LastTerminationState.Terminated = &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "OOMKilled"}
				})}
			},
		},
		"Unschedulable": {
			reason: "the scheduler's own message",
			pods: func(t *testing.T) []corev1.Pod {
				return []corev1.Pod{kubeletPod(t, "p", 20*time.Second, "unschedulable")}
			},
			want: want{reason: model.ReasonPodsUnschedulable, message: `1 of 1 pod cannot be scheduled: pod "p": ` +
				`"0/3 nodes are available: 3 Insufficient memory. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod."`},
		},
		"ContainerCreatingWithinTheDeadline": {
			reason: "a pod creating its container is starting normally: no problem, and a recheck when its deadline comes",
			pods: func(t *testing.T) []corev1.Pod {
				return []corev1.Pod{kubeletPod(t, "p", time.Minute, "container-creating")}
			},
			want: want{recheck: 9 * time.Minute},
		},
		"ContainerCreatingPastTheDeadline": {
			reason: "still creating its container after the deadline (a volume that does not mount shows only in events)",
			pods: func(t *testing.T) []corev1.Pod {
				return []corev1.Pod{kubeletPod(t, "p", 11*time.Minute, "container-creating")}
			},
			want: want{reason: model.ReasonPodsNotStarting, message: `1 of 1 pod cannot start: pod "p" container "glance-api" is still ContainerCreating past the deadline`},
		},
		"NotReadyWithinTheDeadline": {
			reason: "running, started, not ready yet: a rollout in progress",
			pods: func(t *testing.T) []corev1.Pod {
				return []corev1.Pod{kubeletPod(t, "p", 2*time.Minute, "running-not-ready")}
			},
			want: want{recheck: 8 * time.Minute},
		},
		"NotReadyPastTheDeadline": {
			reason: "running but not ready after the deadline: the readiness probe fails",
			pods: func(t *testing.T) []corev1.Pod {
				return []corev1.Pod{kubeletPod(t, "p", 12*time.Minute, "running-not-ready")}
			},
			want: want{reason: model.ReasonPodsNotReady, message: `1 of 1 pod is not ready: pod "p" container "glance-api" runs but is not ready within the deadline`},
		},
		"NotReadyDeadlineExceeded": {
			reason: "the Deployment controller says the rollout's deadline passed: a young pod counts too",
			pods: func(t *testing.T) []corev1.Pod {
				return []corev1.Pod{kubeletPod(t, "p", 2*time.Minute, "running-not-ready")}
			},
			passed: true,
			want:   want{reason: model.ReasonPodsNotReady, message: `1 of 1 pod is not ready: pod "p" container "glance-api" runs but is not ready within the deadline`},
		},
		"StartupProbePastTheDeadline": {
			reason: "started false: the startup probe, not the readiness probe, has not passed",
			pods: func(t *testing.T) []corev1.Pod {
				return []corev1.Pod{kubeletPod(t, "p", 12*time.Minute, "running-not-ready", func(st *corev1.PodStatus) {
					no := false
					st.ContainerStatuses[0].Started = &no
				})}
			},
			want: want{reason: model.ReasonPodsNotReady, message: `1 of 1 pod is not ready: pod "p" container "glance-api" runs but its startup probe has not succeeded within the deadline`},
		},
		"NoContainerStatusPastTheDeadline": {
			reason: "no kubelet ever reported the pod's containers",
			pods: func(t *testing.T) []corev1.Pod {
				return []corev1.Pod{kubeletPod(t, "p", 11*time.Minute, "container-creating", func(st *corev1.PodStatus) {
					st.ContainerStatuses = nil
				})}
			},
			want: want{reason: model.ReasonPodsNotStarting, message: `1 of 1 pod cannot start: pod "p" has no container started past the deadline (phase Pending)`},
		},
		"TerminatingAndSucceededNotCounted": {
			reason: "a pod being deleted (an old replica) and a pod that succeeded are not counted",
			pods: func(t *testing.T) []corev1.Pod {
				old := kubeletPod(t, "old", time.Hour, "crash-loop-backoff")
				old.DeletionTimestamp = &old.CreationTimestamp
				done := kubeletPod(t, "done", time.Hour, "ready", func(st *corev1.PodStatus) { st.Phase = corev1.PodSucceeded })
				return []corev1.Pod{old, done, kubeletPod(t, "new", time.Minute, "create-container-config-error")}
			},
			want: want{reason: model.ReasonPodsNotStarting, message: `1 of 1 pod cannot start: pod "new" container "glance-api": ` + configError},
		},
		"Evicted": {
			reason: "a pod the kubelet evicted: its reason and message, not its container's exit",
			pods: func(t *testing.T) []corev1.Pod {
				return []corev1.Pod{kubeletPod(t, "p", 3*time.Hour, "evicted")}
			},
			want: want{reason: model.ReasonPodsFailed, message: `1 of 1 pod failed: pod "p": Evicted: ` +
				`"The node was low on resource: memory. Threshold quantity: 100Mi, available: 87Mi. Container glance-api was using 1432Mi, request is 0, has larger consumption of memory. "`},
		},
		"FailedJobPod": {
			reason: "a Job's pod whose init container exited non-zero",
			pods: func(t *testing.T) []corev1.Pod {
				return []corev1.Pod{kubeletPod(t, "glance-db-sync-abc12", 3*time.Minute, "job-failed")}
			},
			want: want{reason: model.ReasonPodsFailed, message: `1 of 1 pod failed: pod "glance-db-sync-abc12" init container "db-sync" exited with code 1 (Error)`},
		},
		"JobImagePullBackOff": {
			reason: "a Job's pod whose init container cannot pull its image",
			pods: func(t *testing.T) []corev1.Pod {
				return []corev1.Pod{kubeletPod(t, "glance-db-sync-abc12", 3*time.Minute, "job-image-pull-backoff")}
			},
			want: want{reason: model.ReasonPodsNotStarting, message: `1 of 1 pod cannot start: pod "glance-db-sync-abc12" init container "db-sync": ` +
				`ImagePullBackOff: "Back-off pulling image \"ghcr.io/c5c3/glance:2025.2\""`},
		},
		"InitContainerRunningWithinTheDeadline": {
			reason: "an init container at work is progress",
			pods: func(t *testing.T) []corev1.Pod {
				return []corev1.Pod{kubeletPod(t, "p", time.Minute, "container-creating", jobPod(
					corev1.ContainerState{Running: &corev1.ContainerStateRunning{}},
					corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "PodInitializing"}}))}
			},
			want: want{recheck: 9 * time.Minute},
		},
		"InitContainerPastTheDeadline": {
			reason: "an init container that has not completed by the deadline",
			pods: func(t *testing.T) []corev1.Pod {
				return []corev1.Pod{kubeletPod(t, "p", 11*time.Minute, "container-creating", jobPod(
					corev1.ContainerState{Running: &corev1.ContainerStateRunning{}},
					corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "PodInitializing"}}))}
			},
			want: want{reason: model.ReasonPodsNotStarting, message: `1 of 1 pod cannot start: pod "p" init container "db-sync" has not completed within the deadline`},
		},
		"InitContainerImagePull": {
			reason: "an init container that cannot start is named as one",
			pods: func(t *testing.T) []corev1.Pod {
				return []corev1.Pod{kubeletPod(t, "p", time.Minute, "container-creating", jobPod(
					corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ErrImagePull", Message: "rpc error: code = NotFound desc = not found"}},
					corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "PodInitializing"}}))}
			},
			want: want{reason: model.ReasonPodsNotStarting, message: `1 of 1 pod cannot start: pod "p" init container "db-sync": ErrImagePull: "rpc error: code = NotFound desc = not found"`},
		},
		"InitContainerCrashLoop": {
			reason: "an init container restarted (restartPolicy OnFailure) is crash-looping",
			pods: func(t *testing.T) []corev1.Pod {
				return []corev1.Pod{kubeletPod(t, "p", time.Minute, "container-creating", jobPod(
					corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: "back-off 10s"}},
					corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "PodInitializing"}}))}
			},
			want: want{reason: model.ReasonPodsCrashLooping, message: `1 of 1 pod is crash-looping: pod "p" init container "db-sync" restarted 0 times`},
		},
		"ManyPodsOneLinePerReason": {
			reason: "a rollout of three replicas beside the old ones: each reason once, with its count and the first pod by name, most fundamental first",
			pods: func(t *testing.T) []corev1.Pod {
				return []corev1.Pod{
					kubeletPod(t, "glance-new-c", 5*time.Minute, "crash-loop-backoff"),
					kubeletPod(t, "glance-new-a", 5*time.Minute, "crash-loop-backoff"),
					kubeletPod(t, "glance-new-b", 5*time.Minute, "unschedulable"),
					kubeletPod(t, "glance-old-a", 5*time.Hour, "ready"),
					kubeletPod(t, "glance-old-b", 5*time.Hour, "ready"),
					kubeletPod(t, "glance-new-d", time.Minute, "container-creating"),
				}
			},
			want: want{reason: model.ReasonPodsUnschedulable, recheck: 9 * time.Minute, message: `1 of 6 pods cannot be scheduled: pod "glance-new-b": ` +
				`"0/3 nodes are available: 3 Insufficient memory. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod."; ` +
				`2 of 6 pods are crash-looping: pod "glance-new-a" container "glance-api" restarted 4 times, last exited with code 1 (Error)`},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			v := report.SummarizePods(tc.pods(t), report.PodDeadline{Now: podsNow, After: 10 * time.Minute, Passed: tc.passed})
			got := want{reason: v.Reason, message: v.Message, recheck: v.Recheck}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\n-want +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// Whatever a pod's status holds, the message stays short, on one line, and
// shows no termination message (the program in the container writes it).
func TestPodMessagesAreBoundedAndEscaped(t *testing.T) {
	long := strings.Repeat("x\n\x1b[31m\u202e", 3000)
	name := strings.Repeat("n", 300) + "\n"
	var pods []corev1.Pod
	for i := 0; i < 1000; i++ {
		pods = append(pods,
			kubeletPod(t, "p", time.Minute, "crash-loop-backoff", func(st *corev1.PodStatus) {
				st.ContainerStatuses[0].Name = name
				st.ContainerStatuses[0].LastTerminationState.Terminated.Reason = long
				st.ContainerStatuses[0].LastTerminationState.Terminated.Message = "password=s3cr3t"
			}),
			kubeletPod(t, "q", time.Minute, "create-container-config-error", waiting(long, long)),
			kubeletPod(t, name, time.Minute, "unschedulable", func(st *corev1.PodStatus) { st.Conditions[0].Message = long }),
			kubeletPod(t, "s", time.Hour, "running-not-ready"))
	}
	v := report.SummarizePods(pods, report.PodDeadline{Now: podsNow, After: 10 * time.Minute})
	assert.Equal(t, model.ReasonPodsUnschedulable, v.Reason)
	assert.Less(t, len(v.Message), 3000, "four reasons, each bounded")
	assert.NotContains(t, v.Message, "\n")
	assert.NotContains(t, v.Message, "\x1b")
	assert.NotContains(t, v.Message, "\u202e")
	assert.NotContains(t, v.Message, "s3cr3t", "the termination message is never shown")
	assert.Contains(t, v.Message, "1000 of 4000 pods are crash-looping")
	assert.Contains(t, v.Message, "1000 of 4000 pods are not ready")
}
