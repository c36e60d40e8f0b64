package glance

import (
	"time"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/glance/decide"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
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
	// decided for the config (reachChildren).
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
	// their own, derived from that status alone (report/events.go).
	evs, err := events(o.Glance, o.Events, o.Now)
	if err != nil {
		return nil, err
	}
	resp.Children = append(resp.Children, evs...)
	return resp, nil
}

// reach is what spec.gateway and spec.networkPolicy add to a sync: the
// route and the NetworkPolicies, and their conditions.
type reach struct {
	children   []any
	conditions []hook.Condition
}

// reachChildren renders each feature's reach (the route, the
// NetworkPolicies) whatever the config decision: neither is mounted by a
// pod, and a store waiting for its egress (awaitEgress) must not wait for
// a config render that waits for it.
func reachChildren(o *observe.Observed, stores []*model.Store) (reach, error) {
	var r reach
	for _, f := range features {
		if f.reach == nil {
			continue
		}
		children, c, err := f.reach(o, stores)
		if err != nil {
			return r, err
		}
		r.children = append(r.children, children...)
		if c != nil {
			r.conditions = append(r.conditions, *c)
		}
	}
	return r, nil
}

// events are the Events the observed status calls for, from the features'
// Events (report.EventsOf).
func events(g *api.Glance, observed observe.ObservedEvents, now time.Time) ([]any, error) {
	return report.EventsOf(g, observed, now, eventSources)
}
