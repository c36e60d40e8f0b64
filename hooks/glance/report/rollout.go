package report

import (
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
)

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
// a rollout: their reason replaces RollingOut, their summary follows what
// it rolls out.
func ExplainRollout(c hook.Condition, pods PodsVerdict) hook.Condition {
	if c.Status || c.Reason != model.ReasonRollingOut || pods.Reason == "" {
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
