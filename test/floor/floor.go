// Package floor is what the benchmarks and the load test measure the hooks
// against: the paths of the hooks served with no hook logic. It lives among
// the tests so that the production binary cannot serve it.
package floor

import (
	"github.com/labstack/echo/v4"

	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/transport/server"
)

// Routes serve the paths of server.DefaultRoutes with no hook logic: each
// decodes the body into its Metacontroller envelope as the hooks' routes do
// and answers the envelope encoded again. Serving them costs what reading
// and writing the same JSON with the standard library costs through the
// same transport (the hooks' handler reads the envelope faster). Routes that
// are not Metacontroller hooks (/validate) stay as they are.
func Routes() []server.Route {
	routes := server.DefaultRoutes()
	for i, r := range routes {
		switch {
		case r.Sync != nil:
			routes[i] = server.Route{Path: r.Path, Caller: r.Caller, Body: echoEnvelope("sync")}
		case r.Customize != nil:
			routes[i] = server.Route{Path: r.Path, Caller: r.Caller, Body: echoEnvelope("customize")}
		}
	}
	return routes
}

func echoEnvelope(kind string) server.BodyFunc {
	return func(_ echo.Context, _ *server.Config, body []byte) (any, error) {
		var env any = &metacontroller.SyncRequest{}
		if kind == "customize" {
			env = &metacontroller.CustomizeRequest{}
		}
		if err := server.DecodeEnvelope(body, env, kind); err != nil {
			return nil, err
		}
		return env, nil
	}
}
