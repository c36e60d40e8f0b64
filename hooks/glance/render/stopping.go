package render

import "github.com/c5c3/glance-hooks/hooks/contract/api"

// TerminationGraceSeconds is how long a glance-api pod has between
// SIGTERM and SIGKILL (Kubernetes' default, written out because the
// uWSGI ini's worker mercy is derived from it), unless the longest
// request allowed needs more (see graceSeconds).
const TerminationGraceSeconds = 30

// PreStopSleepSeconds is the preStop sleep of a spec that sets none:
// the pod is taken out of its Service's endpoints when it is deleted,
// at the same time as the kubelet starts to stop it, and kube-proxy,
// a Gateway and the other nodes learn of it a few seconds later. For
// those seconds new requests still reach the pod; after them only
// requests already taken are left. The eventlet server's workers end
// at once on SIGTERM, so this sleep is also the time its requests in
// flight have to finish.
const PreStopSleepSeconds = 5

// stopMarginSeconds is what the grace period keeps beyond the preStop
// sleep and the worker mercy: the time the master needs to kill a
// worker after the mercy and to exit.
const stopMarginSeconds = 10

// GraceSeconds is the glance-api pods' grace period: the spec's, or long
// enough for the longest request allowed to finish after the preStop sleep
// (uWSGI's harakiri ends a request that runs longer; with uWSGI's worker
// mercy as long as harakiri, the master waits for such a request), and at
// least the Kubernetes default. The eventlet server has no bound on a
// request and no drain after SIGTERM: it gets the default.
func GraceSeconds(spec api.GlanceSpec) int64 {
	if d := spec.Deployment; d != nil && d.TerminationGracePeriodSeconds != nil {
		return *d.TerminationGracePeriodSeconds
	}
	longest := int64(0)
	if a := spec.APIServer; a != nil && a.UWSGI != nil && a.UWSGI.Harakiri != nil {
		longest = int64(*a.UWSGI.Harakiri)
	}
	return max(TerminationGraceSeconds, PreStopSeconds(spec)+longest+stopMarginSeconds)
}

// PreStopSeconds is the pods' preStop sleep: the spec's (0 for none) or
// PreStopSleepSeconds.
func PreStopSeconds(spec api.GlanceSpec) int64 {
	if d := spec.Deployment; d != nil && d.PreStopSleepSeconds != nil {
		return *d.PreStopSleepSeconds
	}
	return PreStopSleepSeconds
}
