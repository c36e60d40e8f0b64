package server

import (
	"log/slog"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/c5c3/glance-hooks/hooks/contract/excerpt"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
)

// Context keys the handlers fill for the request log line.
const (
	logParentKey  = "log.parent"
	logErrorKey   = "log.error"
	logAllowedKey = "log.allowed"
	logDeniedKey  = "log.denied"
)

// logRequests writes one structured line per request: method, path, the
// parent it was about, status and duration. Bodies are never logged: they
// carry credentials.
func logRequests(log *slog.Logger) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			start := time.Now()
			err := next(c)
			if err != nil {
				c.Error(err)
			}
			attrs := []any{
				"method", c.Request().Method,
				"path", excerpt.Token(c.Request().URL.Path, excerpt.MaxKind),
				"status", c.Response().Status,
				"duration_ms", float64(time.Since(start).Microseconds()) / 1000,
			}
			if p, ok := c.Get(logParentKey).(string); ok && p != "" {
				attrs = append(attrs, "parent", p)
			}
			if allowed, ok := c.Get(logAllowedKey).(bool); ok {
				attrs = append(attrs, "allowed", allowed)
			}
			if msg, ok := c.Get(logDeniedKey).(string); ok && msg != "" {
				attrs = append(attrs, "denied", hook.Truncate(msg, MaxErrorMessage))
			}
			level := slog.LevelInfo
			if msg, ok := c.Get(logErrorKey).(string); ok && msg != "" {
				attrs = append(attrs, "error", msg)
				level = slog.LevelWarn
				if c.Response().Status >= 500 {
					level = slog.LevelError
				}
			}
			log.Log(c.Request().Context(), level, "request", attrs...)
			return nil
		}
	}
}
