package server

import (
	"bytes"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/c5c3/glance-hooks/hooks/contract/excerpt"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/controlplane"
	"github.com/c5c3/glance-hooks/hooks/glance"
	"github.com/c5c3/glance-hooks/hooks/glancebackend"
	"github.com/c5c3/glance-hooks/internal/buildinfo"
	"github.com/c5c3/glance-hooks/internal/rawjson"
)

// SyncFunc is a pure sync hook.
type SyncFunc func(req *metacontroller.SyncRequest, now time.Time) (*metacontroller.SyncResponse, error)

// CustomizeFunc is a pure customize hook.
type CustomizeFunc func(req *metacontroller.CustomizeRequest) (*metacontroller.CustomizeResponse, error)

// BodyFunc handles a raw body that is not a Metacontroller envelope
// (AdmissionReview for /validate). It gets the server's Config for what the
// hook needs besides the body (the Lister).
type BodyFunc func(c echo.Context, cfg *Config, body []byte) (any, error)

// Caller is who calls a route; it decides how the caller is authenticated.
type Caller int

const (
	// Metacontroller calls the sync and customize hooks; with a token
	// configured (Config.HookToken) it must send it as a Bearer token.
	Metacontroller Caller = iota
	// APIServer calls the admission webhook; it is authenticated by the
	// listener's client certificates when those are required.
	APIServer
)

// Route binds one POST path to exactly one of the hook kinds.
type Route struct {
	Path      string
	Caller    Caller
	Sync      SyncFunc
	Customize CustomizeFunc
	Body      BodyFunc
}

// DefaultRoutes are the hooks this service serves, the registration Jobs
// running this build's release image.
func DefaultRoutes() []Route { return RoutesWith(buildinfo.Get().Image()) }

// RoutesWith are the hooks this service serves, the ControlPlane's
// registration Jobs running jobImage.
func RoutesWith(jobImage string) []Route {
	return []Route{
		{Path: "/customize/controlplane", Customize: controlplane.Customize},
		{Path: "/sync/controlplane", Sync: controlplane.Hook{JobImage: jobImage}.Sync},
		{Path: "/customize/glancebackend", Customize: glancebackend.Customize},
		{Path: "/sync/glancebackend", Sync: glancebackend.Sync},
		{Path: "/customize/glance", Customize: glance.Customize},
		{Path: "/sync/glance", Sync: glance.Sync},
		{Path: "/validate", Caller: APIServer, Body: Validate},
	}
}

// RoutesOf keeps the routes the caller calls: a listener serves one caller's
// routes only, so each can be reached, authenticated and given privileges
// for that caller alone.
func RoutesOf(routes []Route, caller Caller) []Route {
	var out []Route
	for _, r := range routes {
		if r.Caller == caller {
			out = append(out, r)
		}
	}
	return out
}

// handler waits for a turn once the head of the body arrived (see
// bodyHead): a client that sends its body slowly holds a goroutine and what
// it sent so far, never a turn a complete request could use, and requests
// that wait hold no bodies. With the turn it reads the rest. A Metacontroller
// route hashes the body into the answer's ETag as it reads it, and answers
// 304 to a caller that already holds that answer (see etag.go).
func (r Route) handler(cfg Config, slots *inFlight, bufs *bodyBuffers) echo.HandlerFunc {
	if r.Caller != Metacontroller {
		// /validate hands the body to the Lister's API reads; only the
		// hooks, which keep nothing of a request, read into kept buffers.
		bufs = nil
	}
	return func(c echo.Context) error {
		b, err := startBody(c, cfg.MaxBodyBytes, cfg.BodyReadTimeout, bufs)
		if err != nil {
			return err
		}
		// The array items are counted once the body is read; until then it
		// weighs as if its items weighed as much as its bytes, more than
		// any request Metacontroller sends (a tenth to four fifths).
		weight := 2 * requestWeight(int(b.bytes()), 0)
		release, err := slots.acquire(c.Request().Context(), weight)
		if err != nil {
			return err
		}
		defer func() {
			// The buffer goes back before the turn: the request the turn
			// goes to next finds it kept, instead of allocating another
			// while this one is on its way back.
			b.done()
			release()
		}()
		body, tag, err := r.rest(c, cfg.Build, b)
		if err != nil {
			return err
		}
		if tag != "" && notModified(c.Request().Header, tag) {
			c.Response().Header().Set(headerETag, tag)
			return c.NoContent(http.StatusNotModified)
		}
		items, scanned, err := r.countItems(body)
		if err != nil {
			return err
		}
		full := requestWeight(len(body), items)
		if release, err = slots.reweigh(c.Request().Context(), release, weight, full); err != nil {
			return err
		}
		out, err := r.call(c, &cfg, body, scanned)
		if err != nil {
			if hook.IsInputError(err) {
				return newHTTPError(http.StatusUnprocessableEntity, "%s", err.Error())
			}
			return err
		}
		if tag != "" {
			c.Response().Header().Set(headerETag, tag)
		}
		return c.JSON(http.StatusOK, out)
	}
}

// rest reads the rest of the request's body with the turn and, on a
// Metacontroller route, hashes it into its answer's tag as it arrives ("" on
// the other routes).
func (r Route) rest(c echo.Context, build string, b *body) (data []byte, tag string, err error) {
	if r.Caller != Metacontroller {
		data, err = b.rest(nil)
		return data, "", err
	}
	hash := newTagHash(build, c.Request().URL.RequestURI(), b.bytes())
	if data, err = b.rest(&hash); err != nil {
		return nil, "", err
	}
	return data, hash.tag(), nil
}

// countItems counts the body's array items. A hook's body is scanned once:
// valid, and its arrays within the limits, it is parsed later without a
// second validating pass and without copying its objects, each object
// stepped over by the end the scan kept for it (scanned, not nil).
// Anything else is counted the way it always was, with the same answers.
func (r Route) countItems(body []byte) (items int, scanned *rawjson.Ends, err error) {
	if r.Sync != nil || r.Customize != nil {
		arrays, ends, ok := rawjson.ScanEnds(body, objectDepth)
		if ok && arrays.Longest <= MaxArrayItems && arrays.Items <= MaxArrayItemsTotal {
			return arrays.Items, ends, nil
		}
	}
	items, err = countArrayItems(body)
	return items, nil, err
}

// objectDepth is how deep an object of a Metacontroller request opens: the
// envelope, its children or related, their kind, the object.
const objectDepth = 4

// call parses the body as the route's kind of request and calls its hook;
// the parent a hook is called for is kept for the access log.
func (r Route) call(c echo.Context, cfg *Config, body []byte, scanned *rawjson.Ends) (any, error) {
	switch {
	case r.Sync != nil:
		req, err := parseEnvelope(body, scanned, metacontroller.ParseSyncRequestWith, "sync")
		if err != nil {
			return nil, err
		}
		c.Set(logParentKey, describeParent(req.Parent))
		return r.Sync(req, cfg.Now())
	case r.Customize != nil:
		req, err := parseEnvelope(body, scanned, metacontroller.ParseCustomizeRequestWith, "customize")
		if err != nil {
			return nil, err
		}
		c.Set(logParentKey, describeParent(req.Parent))
		return r.Customize(req)
	default:
		return r.Body(c, cfg, body)
	}
}

// parseEnvelope reads a hook's envelope: with parse, without copies, from
// a body rawjson.Scan found valid and within the limits; otherwise, and
// whenever parse declines, with decodeEnvelope, which names what is wrong.
func parseEnvelope[T any](body []byte, scanned *rawjson.Ends, parse func([]byte, *rawjson.Ends) (*T, bool), what string) (*T, error) {
	if scanned != nil {
		if req, ok := parse(body, scanned); ok {
			return req, nil
		}
	}
	req := new(T)
	if err := decodeEnvelope(body, req, what); err != nil {
		return nil, err
	}
	return req, nil
}

// DecodeEnvelope decodes one JSON object and nothing after it into a
// Metacontroller envelope, as the hooks' routes do; a bad body is a 400
// naming what (sync or customize) it is not. Exported for the measurements'
// floor (test/floor), which must decode exactly as the routes do.
func DecodeEnvelope(body []byte, into any, what string) error {
	return decodeEnvelope(body, into, what)
}

// decodeEnvelope decodes one JSON object and nothing after it.
func decodeEnvelope(body []byte, into any, what string) error {
	// A body that is one JSON value and nothing else, which is every body
	// Metacontroller sends, decodes with json.Unmarshal: a decoder would
	// copy the body into a buffer as big again. Anything else goes through
	// the decoder below, which says what is wrong; the two accept the same
	// bodies: Unmarshal only succeeds where the decoder succeeds with the
	// same result, and when it fails on the syntax it decoded nothing (it
	// checks the whole body first).
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
	if rawjson.Unmarshal(raw, &p) != nil {
		return ""
	}
	// A copy: the log line is written after the body's buffer is given
	// back (bodyBuffers).
	return strings.Clone(logObject(p.Kind, p.Metadata.Namespace, p.Metadata.Name))
}

// logObject is "Kind namespace/name" for the log, each part as sent when it
// looks like one and a short escaped excerpt otherwise.
func logObject(kind, namespace, name string) string {
	return excerpt.Token(kind, excerpt.MaxKind) + " " + excerpt.Token(namespace, excerpt.MaxKind) + "/" + excerpt.Token(name, excerpt.MaxName)
}
