package kubechain

import (
	"context"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/c5c3/glance-hooks/simulate/chain"
)

var (
	jobs        = schema.GroupVersionResource{Group: "batch", Version: "v1", Resource: "jobs"}
	deployments = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
)

// PlayControllers does in a namespace what the Job and Deployment
// controllers would once the pods ran (no controller-manager or kubelet
// runs here): every unfinished Job completes, every Deployment reports its
// rollout done (chain.RolledOut). It returns the status writes it made.
func (m *Metacontroller) PlayControllers(ctx context.Context, ns string, now time.Time) ([]Write, error) {
	var writes []Write
	played := []struct {
		gvr    schema.GroupVersionResource
		kind   string
		status func(chain.Object) map[string]any
	}{
		{jobs, "Job", func(o chain.Object) map[string]any {
			if chain.JobFinished(o) {
				return nil
			}
			return jobCompleted(o, now)
		}},
		{deployments, "Deployment", chain.RolledOut},
	}
	for _, p := range played {
		l, err := m.controllers.Resource(p.gvr).Namespace(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return writes, err
		}
		items := l.Items
		for _, item := range items {
			st := p.status(item.Object)
			if st == nil {
				continue
			}
			r := chain.Ref{APIVersion: p.gvr.GroupVersion().String(), Kind: p.kind, Namespace: ns, Name: item.GetName()}
			err := updateStatus(ctx, m.controllers.Resource(p.gvr).Namespace(ns), item.GetName(), st, func() {
				writes = append(writes, Write{Verb: chain.VerbStatus, Ref: r})
			})
			if err != nil {
				return writes, err
			}
		}
	}
	return writes, nil
}

// jobCompleted is the status the Job controller writes when a Job's one
// pod succeeded. The API server checks a finished Job's status as that
// controller writes it (kube-apiserver's Job status validation): a start
// and a completion time, SuccessCriteriaMet before Complete, the pod
// counted as succeeded, none left uncounted. chain's in-memory Job
// controller keeps only the Complete condition the hooks read.
func jobCompleted(job chain.Object, now time.Time) map[string]any {
	at := now.UTC().Format(time.RFC3339)
	start := at
	if meta, _ := job["metadata"].(map[string]any); meta != nil {
		if created, _ := meta["creationTimestamp"].(string); created != "" {
			start = created
		}
	}
	cond := func(typ string) map[string]any {
		return map[string]any{"type": typ, "status": "True", "reason": "CompletionsReached",
			"message": "Reached expected number of succeeded pods", "lastProbeTime": at, "lastTransitionTime": at}
	}
	return map[string]any{
		"startTime": start, "completionTime": at, "succeeded": int64(1), "ready": int64(0), "terminating": int64(0),
		"uncountedTerminatedPods": map[string]any{},
		"conditions":              []any{cond("SuccessCriteriaMet"), cond("Complete")},
	}
}
