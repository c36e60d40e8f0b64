// Package events proves the Glance's Events on a real API server: the
// in-process Metacontroller chain runs the hooks, and what it writes of the
// Glance (its status and its Event children) goes to a real kube-apiserver,
// where `kubectl describe glance` and `kubectl get events` read them.
package events
