package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/controlplane"
	"github.com/c5c3/glance-hooks/hooks/glance"
	"github.com/c5c3/glance-hooks/hooks/glancebackend"
)

// SyncFunc is a pure sync hook.
type SyncFunc func(req *metacontroller.SyncRequest, now time.Time) (*metacontroller.SyncResponse, error)

// CustomizeFunc is a pure customize hook.
type CustomizeFunc func(req *metacontroller.CustomizeRequest) (*metacontroller.CustomizeResponse, error)

// BodyFunc handles a raw body that is not a Metacontroller envelope
// (AdmissionReview for /validate). It gets the server's Config for what the
// hook needs besides the body (the Lister).
type BodyFunc func(c echo.Context, cfg *Config, body []byte) (any, error)

// Route binds one POST path to exactly one of the hook kinds.
type Route struct {
	Path      string
	Sync      SyncFunc
	Customize CustomizeFunc
	Body      BodyFunc
}

// DefaultRoutes are the hooks this service serves.
func DefaultRoutes() []Route {
	return []Route{
		{Path: "/sync/controlplane", Sync: controlplane.Sync},
		{Path: "/customize/glancebackend", Customize: glancebackend.Customize},
		{Path: "/sync/glancebackend", Sync: glancebackend.Sync},
		{Path: "/customize/glance", Customize: glance.Customize},
		{Path: "/sync/glance", Sync: glance.Sync},
		{Path: "/validate", Body: Validate},
	}
}

// FloorRoutes serve the paths of DefaultRoutes with no hook logic: each
// decodes the body into its Metacontroller envelope, as the hooks' handler
// does, and answers the envelope encoded again. Serving them costs what
// reading and writing the same JSON costs through the same transport, the
// floor the benchmarks and the load test measure the hooks against. They
// are served only by "serve --floor", never in production; routes that are
// not Metacontroller hooks (/validate) stay as they are.
func FloorRoutes() []Route {
	routes := DefaultRoutes()
	for i, r := range routes {
		switch {
		case r.Sync != nil:
			routes[i] = Route{Path: r.Path, Body: floor("sync")}
		case r.Customize != nil:
			routes[i] = Route{Path: r.Path, Body: floor("customize")}
		}
	}
	return routes
}

func floor(kind string) BodyFunc {
	return func(_ echo.Context, _ *Config, body []byte) (any, error) {
		var env any = &metacontroller.SyncRequest{}
		if kind == "customize" {
			env = &metacontroller.CustomizeRequest{}
		}
		if err := decodeEnvelope(body, env, kind); err != nil {
			return nil, err
		}
		return env, nil
	}
}

func (r Route) handler(cfg Config) echo.HandlerFunc {
	return func(c echo.Context) error {
		body, err := readBody(c, cfg.MaxBodyBytes)
		if err != nil {
			return err
		}
		var out any
		switch {
		case r.Sync != nil:
			var req metacontroller.SyncRequest
			if err := decodeEnvelope(body, &req, "sync"); err != nil {
				return err
			}
			c.Set(logParentKey, describeParent(req.Parent))
			out, err = r.Sync(&req, cfg.Now())
		case r.Customize != nil:
			var req metacontroller.CustomizeRequest
			if err := decodeEnvelope(body, &req, "customize"); err != nil {
				return err
			}
			c.Set(logParentKey, describeParent(req.Parent))
			out, err = r.Customize(&req)
		default:
			out, err = r.Body(c, &cfg, body)
		}
		if err != nil {
			if hook.IsInputError(err) {
				return newHTTPError(http.StatusUnprocessableEntity, "%s", err.Error())
			}
			return err
		}
		return c.JSON(http.StatusOK, out)
	}
}

// readBody reads at most limit bytes; a larger body is a 413.
func readBody(c echo.Context, limit int64) ([]byte, error) {
	if c.Request().ContentLength > limit {
		return nil, newHTTPError(http.StatusRequestEntityTooLarge, "request body is larger than the %d-byte limit", limit)
	}
	r := http.MaxBytesReader(c.Response(), c.Request().Body, limit)
	var body []byte
	var err error
	if n := c.Request().ContentLength; n > 0 {
		// The announced size, read into one buffer of that size rather than
		// one grown by doubling: a 4 MB request left 8 MB behind.
		body = make([]byte, n)
		_, err = io.ReadFull(r, body)
	} else {
		body, err = io.ReadAll(r)
	}
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, newHTTPError(http.StatusRequestEntityTooLarge, "request body is larger than the %d-byte limit", limit)
		}
		return nil, newHTTPError(http.StatusBadRequest, "reading the request body failed")
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, newHTTPError(http.StatusBadRequest, "request body is empty")
	}
	return body, nil
}

// decodeEnvelope decodes one JSON object and nothing after it.
func decodeEnvelope(body []byte, into any, what string) error {
	// A body that is one JSON value and nothing else, which is every body
	// Metacontroller sends, decodes with json.Unmarshal: no copy of the body
	// into a decoder's buffer, which for a large request was as big again
	// as the body. Anything else goes through the decoder below exactly as
	// before, so errors and what is accepted stay the same: Unmarshal only
	// succeeds where the decoder succeeds with the same result, and when it
	// fails on the syntax it decoded nothing (it checks the whole body first).
	if json.Unmarshal(body, into) == nil {
		return nil
	}
	reflect.ValueOf(into).Elem().SetZero()
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(into); err != nil {
		return newHTTPError(http.StatusBadRequest, "body is not a Metacontroller %s request: %s", what, hook.DescribeJSONError(err))
	}
	if dec.More() {
		return newHTTPError(http.StatusBadRequest, "body is not a Metacontroller %s request: unexpected data after the JSON object", what)
	}
	return nil
}

// describeParent is "Kind namespace/name" for the log, read from the parent's
// type and metadata only.
func describeParent(raw json.RawMessage) string {
	var p struct {
		Kind     string `json:"kind"`
		Metadata struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
		} `json:"metadata"`
	}
	if json.Unmarshal(raw, &p) != nil {
		return ""
	}
	return p.Kind + " " + p.Metadata.Namespace + "/" + p.Metadata.Name
}
