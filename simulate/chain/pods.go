package chain

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"
)

// StartPod creates a pod as a Deployment's ReplicaSet or a Job would: the
// owner's pod template (labels, annotations, spec), controlled by the
// ReplicaSet "<deployment>-<hash of the template>" (which this world does
// not hold, as no Deployment controller runs here) or by the Job, named
// "<controller>-<suffix>" and created at created. Its status stays Pending
// until the test writes one with SetStatus, the way a kubelet would; so a
// scenario can hold pods that crash, cannot pull their image or are never
// scheduled. Deleting the owner leaves its pods.
func (w *World) StartPod(owner Ref, suffix string, created time.Time) (Ref, error) {
	o, ok := w.objects[owner]
	if !ok {
		return Ref{}, fmt.Errorf("%s not found", owner)
	}
	spec, _ := o["spec"].(map[string]any)
	template, _ := spec["template"].(map[string]any)
	if template == nil {
		return Ref{}, fmt.Errorf("%s has no pod template", owner)
	}
	tmeta, _ := template["metadata"].(map[string]any)
	labels := map[string]any{}
	if l, ok := tmeta["labels"].(map[string]any); ok {
		for k, v := range l {
			labels[k] = v
		}
	}
	controller := Ref{APIVersion: owner.APIVersion, Kind: owner.Kind, Namespace: owner.Namespace, Name: owner.Name}
	switch owner.Kind {
	case "Deployment":
		hash := templateHash(template)
		labels["pod-template-hash"] = hash
		controller = Ref{APIVersion: "apps/v1", Kind: "ReplicaSet", Namespace: owner.Namespace, Name: replicaSetName(owner.Name, hash)}
	case "Job":
		labels["batch.kubernetes.io/job-name"] = owner.Name
		labels["job-name"] = owner.Name
	default:
		return Ref{}, fmt.Errorf("%s: only a Deployment or a Job starts pods here", owner)
	}
	meta := map[string]any{
		"name": controller.Name + "-" + suffix, "namespace": owner.Namespace, "labels": labels,
		"ownerReferences": []any{map[string]any{
			"apiVersion": controller.APIVersion, "kind": controller.Kind, "name": controller.Name,
			"uid": uidFor(controller), "controller": true, "blockOwnerDeletion": true,
		}},
	}
	if a, ok := tmeta["annotations"]; ok {
		meta["annotations"] = a
	}
	pod := Object{"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": template["spec"]}
	if err := w.Apply(pod); err != nil {
		return Ref{}, err
	}
	r := RefOf(pod)
	metadataOf(w.objects[r])["creationTimestamp"] = created.UTC().Format(time.RFC3339)
	w.changed(r) // written in place: its encoding is made anew
	w.SetStatus(r, map[string]any{"phase": "Pending"})
	return r, nil
}

// ReplicaSetName is the ReplicaSet a Deployment's current pod template
// would run in ("<deployment>-<pod-template-hash>"), as StartPod names it.
func (w *World) ReplicaSetName(deployment Ref) (string, error) {
	o, ok := w.objects[deployment]
	if !ok || deployment.Kind != "Deployment" {
		return "", fmt.Errorf("%s not found", deployment)
	}
	spec, _ := o["spec"].(map[string]any)
	template, _ := spec["template"].(map[string]any)
	return replicaSetName(deployment.Name, templateHash(template)), nil
}

func replicaSetName(deployment, hash string) string {
	return deployment + "-" + hash
}

// templateHash names a ReplicaSet after its pod template, as the
// Deployment controller's pod-template-hash does (not the same function:
// only stable and short).
func templateHash(template map[string]any) string {
	raw, _ := json.Marshal(template)
	h := sha256.Sum256(raw)
	return hex.EncodeToString(h[:])[:10]
}
