package api

import "strings"

// Rename is one Glance field that took the reference API's name in
// v1alpha1: its old path and its new one, under a Glance's spec (a
// ControlPlane's services.glance moved the same way, but for replicas,
// which the reference's ControlPlane keeps there). The CHANGELOG's
// migration table and render's hint for an old name both come from here.
type Rename struct {
	Old, New string
	// Note says what else changed, if anything.
	Note string
}

// Renames are the renamed fields, in the order the spec lists them.
var Renames = []Rename{
	{"replicas", "deployment.replicas", ""},
	{"resources", "deployment.resources", ""},
	{"scheduling.nodeSelector", "deployment.nodeSelector", ""},
	{"scheduling.affinity", "deployment.affinity", ""},
	{"scheduling.tolerations", "deployment.tolerations", ""},
	{"scheduling.topologySpreadConstraints", "deployment.topologySpreadConstraints", ""},
	{"scheduling.priorityClassName", "deployment.priorityClassName", ""},
	{"api.processes", "apiServer.workers", "below 2026.1 (eventlet); apiServer.uwsgi.processes from 2026.1"},
	{"api.threads", "apiServer.uwsgi.threads", "uWSGI only, as before"},
	{"staging.size", "staging.sizeLimit", "at least 1Mi now"},
	{"autoscaling.targetCPUUtilizationPercentage", "autoscaling.targetCPUUtilization", ""},
}

// RenamedTo is where an old Glance field (path relative to the spec) lives
// now: the new path of the field or, for a whole old block (scheduling,
// api), the new paths of its fields. "" when the path was not renamed.
func RenamedTo(old string) string {
	var out []string
	for _, r := range Renames {
		if r.Old == old {
			return r.New
		}
		if strings.HasPrefix(r.Old, old+".") {
			out = append(out, r.New)
		}
	}
	return strings.Join(out, ", ")
}
