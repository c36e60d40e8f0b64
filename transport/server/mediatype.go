package server

import (
	"mime"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

// requireJSON answers 415 to a POST whose Content-Type is not JSON, before
// its body is read. Both callers send "application/json": Metacontroller's
// webhook client sets exactly that, and the API server's admission client
// sends its JSON serializer's type. A charset parameter is fine when it is
// UTF-8, the only encoding JSON has (RFC 8259); other parameters are
// ignored. What the client sent is not quoted back. A request without a Content-Type is read as JSON: every caller
// of these routes sends one, and refusing its absence would only break
// hand-made requests.
func requireJSON(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if err := checkJSONMediaType(c.Request().Header.Get(echo.HeaderContentType)); err != nil {
			return err
		}
		return next(c)
	}
}

// checkJSONMediaType is the decision of requireJSON on one Content-Type.
func checkJSONMediaType(value string) error {
	if value == "" {
		return nil
	}
	media, params, err := mime.ParseMediaType(value)
	switch {
	case err != nil:
		return newHTTPError(http.StatusUnsupportedMediaType, "the Content-Type is not a media type; send application/json")
	case media != echo.MIMEApplicationJSON:
		return newHTTPError(http.StatusUnsupportedMediaType, "the body must be sent as Content-Type application/json")
	}
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") && !strings.EqualFold(cs, "utf8") {
		return newHTTPError(http.StatusUnsupportedMediaType, "JSON is UTF-8: the Content-Type's charset must be utf-8 or absent")
	}
	return nil
}
