package glance

import (
	"time"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/glance/observe"
	"github.com/c5c3/glance-hooks/hooks/glance/report"
)

// events are the Events the observed status calls for, from the features'
// Events (eventsOf).
func events(g *api.Glance, observed observe.ObservedEvents, now time.Time) ([]any, error) {
	return report.EventsOf(g, observed, now, eventSources)
}

// observeEvents lists the observed Events.
func observeEvents(children metacontroller.ObjectMap) observe.ObservedEvents {
	return observe.ObservedEvents{Listed: observe.ObserveListed(children, names.EventsKey), Applied: observe.Applied(children)}
}
