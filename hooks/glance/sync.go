package glance

import (
	"time"

	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/glance/decide"
	"github.com/c5c3/glance-hooks/hooks/glance/observe"
	"github.com/c5c3/glance-hooks/hooks/glance/render"
	"github.com/c5c3/glance-hooks/hooks/glance/report"
)

// Sync answers /sync/glance in four steps: observe decodes the request
// once, decide makes every decision from what was observed, render builds
// the children, and report the status from all three.
func Sync(req *metacontroller.SyncRequest, now time.Time) (*metacontroller.SyncResponse, error) {
	o, err := observeRequest(req, now)
	if err != nil {
		return nil, err
	}
	d := decide.Decide(o, decisions)
	out, err := render.Render(o, &d, parts)
	if err != nil {
		return nil, err
	}
	// The route and the NetworkPolicies follow the spec whatever was
	// decided for the config (reach.go).
	r, err := reachChildren(o, decide.WithRetired(d.Stores, d.Retired))
	if err != nil {
		return nil, err
	}
	out.Children = append(out.Children, r.children...)
	out.Reach = r.conditions
	resp, err := report.Respond(o, &d, out, statuses)
	if err != nil {
		return nil, err
	}
	// The Events tell what the observed status says; they are children of
	// their own, derived from that status alone (events.go).
	evs, err := events(o.Glance, o.Events, o.Now)
	if err != nil {
		return nil, err
	}
	resp.Children = append(resp.Children, evs...)
	return resp, nil
}

// backendsText is the backends.conf of an observed backends Secret, or "".
func backendsText(observed metacontroller.ObjectMap, name string) string {
	// Only the data: the metadata of the backends Secret holds a last-applied
	// record as long as the data, and nothing in it is read.
	sec, found, err := metacontroller.DecodeOne[struct {
		Data map[string]string `json:"data"`
	}](observed, names.SecretsKey, name)
	if err != nil || !found {
		return ""
	}
	text, err := observe.DecodeBase64(sec.Data[names.BackendsFile])
	if err != nil {
		return ""
	}
	return text
}
