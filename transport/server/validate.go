package server

import (
	"context"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/c5c3/glance-hooks/hooks/admission"
	"github.com/c5c3/glance-hooks/hooks/contract/excerpt"
)

// Validate is POST /validate: one AdmissionReview v1 in, one out. A body that
// is not an AdmissionReview it can answer is a 400; every decision, including
// a refusal because the API could not be read, is a 200 carrying the review.
func Validate(c echo.Context, cfg *Config, body []byte) (any, error) {
	rev, err := admission.Decode(body)
	if err != nil {
		return nil, newHTTPError(http.StatusBadRequest, "%s", err.Error())
	}
	req := rev.Request
	c.Set(logParentKey, excerpt.Token(string(req.Operation), excerpt.MaxKind)+" "+logObject(req.Kind.Kind, req.Namespace, req.Name))

	ctx := c.Request().Context()
	if budget, ok := callBudget(c.QueryParam("timeout")); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, budget)
		defer cancel()
	}
	resp := admission.Review(ctx, req, cfg.Lister)
	c.Set(logAllowedKey, resp.Allowed)
	var reason string
	if !resp.Allowed && resp.Result != nil {
		c.Set(logDeniedKey, resp.Result.Message)
		reason = string(resp.Result.Reason)
	}
	cfg.Metrics.admissionDecision(req.Kind.Kind, string(req.Operation), resp.Allowed, reason)
	return admission.Answer(resp), nil
}

// callBudget turns the API server's ?timeout= (the webhook's timeoutSeconds)
// into the time this hook may spend, leaving room for the answer to travel
// back, so a slow API read ends in this hook's refusal, not the API server's
// own "context deadline exceeded".
func callBudget(q string) (time.Duration, bool) {
	if q == "" {
		return 0, false
	}
	d, err := time.ParseDuration(q)
	if err != nil || d <= 0 {
		return 0, false
	}
	if d > 2*time.Second {
		return d - time.Second, true
	}
	return d / 2, true
}
