package server

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/c5c3/glance-hooks/hooks/contract/hook"
)

// MaxErrorMessage bounds an error answer's message (and the log line's
// copy). Messages name fields and objects and quote values only as short
// excerpts; many problems of one object can still add up.
const MaxErrorMessage = 4096

// errorBody is every error answer: one line of JSON naming the problem.
type errorBody struct {
	Error string `json:"error"`
}

// httpError is an error with the status code it answers with.
type httpError struct {
	code int
	msg  string
}

func (e *httpError) Error() string { return e.msg }

func newHTTPError(code int, format string, args ...any) error {
	return &httpError{code: code, msg: fmt.Sprintf(format, args...)}
}

// errorHandler writes every error as {"error": "..."}; echo's own errors
// (404, 405) included.
func errorHandler(log *slog.Logger) echo.HTTPErrorHandler {
	return func(err error, c echo.Context) {
		if c.Response().Committed {
			return
		}
		code, msg := http.StatusInternalServerError, "internal error"
		var he *httpError
		var ee *echo.HTTPError
		switch {
		case errors.As(err, &he):
			code, msg = he.code, he.msg
		case errors.As(err, &ee):
			code, msg = ee.Code, strings.ToLower(http.StatusText(ee.Code))
		}
		msg = hook.Truncate(oneLine(msg), MaxErrorMessage)
		if closesConnection(code) {
			c.Response().Header().Set(echo.HeaderConnection, "close")
			abandonBody(c)
		}
		c.Set(logErrorKey, msg)
		_ = c.JSON(code, errorBody{Error: msg})
	}
}

// closesConnection tells the answers given without reading the body the
// client still owes: refused callers (401), bodies too large (413) or of the
// wrong type (415), bodies too slow (408), connections past the limit or
// requests given up while they waited (503). Closing the connection after
// them is what makes them immediate: otherwise net/http reads up to 256 KiB
// of the unread body before it writes the answer, so a client that
// announced a body and sent none waited for the server's read timeout.
func closesConnection(code int) bool {
	switch code {
	case http.StatusUnauthorized, http.StatusRequestTimeout, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType,
		http.StatusServiceUnavailable:
		return true
	}
	return false
}

// abandonBody makes the rest of a body nobody will read fail at once. With
// Connection: close net/http still reads up to 256 KiB of an unread
// HTTP/1 body once the answer is out before it closes the connection, so
// a client that owed less than that (a 401 to a 1,000-byte request) held
// the connection until the server's read timeout, 30 s; one that owed
// more was cut at once. A short read deadline ends that read soon: long
// enough for a client still sending a small body to finish it, so the
// connection closes with nothing unread and the client reads its answer
// (closing over unread bytes sends a reset, which can reach the client
// before the answer does: a broken pipe instead of a 401), short enough
// that a client that sends nothing is cut well within a second. HTTP/2
// needs none of this: its stream is reset after the answer and the
// connection, sent GOAWAY by Connection: close, ends once no stream is left.
func abandonBody(c echo.Context) {
	if c.Request().ProtoMajor != 1 {
		return
	}
	_ = http.NewResponseController(c.Response()).SetReadDeadline(time.Now().Add(owedBodyDrain))
}

// owedBodyDrain is how long a refused request's unread body is still read
// before its connection closes (abandonBody).
const owedBodyDrain = 300 * time.Millisecond

// recoverPanics turns a panic into a 500; the server keeps serving and the
// stack goes to the log (it holds code locations, not request data).
func recoverPanics(log *slog.Logger) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) (err error) {
			defer func() {
				if r := recover(); r != nil {
					log.Error("panic in hook", "path", c.Path(), "stack", string(debug.Stack()))
					err = newHTTPError(http.StatusInternalServerError, "internal error: the hook failed; see the service log")
				}
			}()
			return next(c)
		}
	}
}

// oneLine keeps an error message on one line whatever it quotes.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, s)
}
