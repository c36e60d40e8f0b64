package server

import (
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/c5c3/glance-hooks/internal/buildinfo"
	"github.com/c5c3/glance-hooks/internal/rawjson"
)

// Metric names, one home for the code that writes them and for the tests
// that check docs/operations.md's alert expressions against them.
const (
	MetricRequests       = "glance_hooks_http_requests_total"
	MetricDuration       = "glance_hooks_http_request_duration_seconds"
	MetricInFlight       = "glance_hooks_http_requests_in_flight"
	MetricAdmission      = "glance_hooks_admission_decisions_total"
	MetricHookInputError = "glance_hooks_hook_input_errors_total"
	MetricBuildInfo      = "glance_hooks_build_info"
	// MetricDecoderFallbacks counts the values the fast decoder left to
	// encoding/json, MetricDecoderPanics those of them it left because
	// reading them panicked (a bug in the fast decoder, answered right).
	MetricDecoderFallbacks = "glance_hooks_decoder_fallbacks_total"
	MetricDecoderPanics    = "glance_hooks_decoder_panics_total"
	// MetricTLSHandshakeErrors counts every failed TLS handshake, logged
	// or not (see serverErrorLog); MetricServerErrors{class="tls_handshake"}
	// counts the same, this one stays for the dashboards that read it.
	MetricTLSHandshakeErrors = "glance_hooks_tls_handshake_errors_total"
	// MetricServerErrors counts every error line of http.Server, logged or
	// not, by class (ServerErrorClasses).
	MetricServerErrors = "glance_hooks_http_server_errors_total"
	// MetricConnsOpen is the connections the hook listener holds open;
	// MetricConnsOverLimit counts those accepted past --max-conns, by
	// what was done with them (ConnsOverLimitActions; see LimitConns).
	MetricConnsOpen      = "glance_hooks_connections_open"
	MetricConnsOverLimit = "glance_hooks_connections_over_limit_total"
)

// MetricLabels are the label names of each metric: what dashboards and
// alerts may select and group by.
var MetricLabels = map[string][]string{
	MetricRequests:           {"route", "status_class"},
	MetricDuration:           {"route"},
	MetricInFlight:           nil,
	MetricAdmission:          {"kind", "operation", "outcome", "reason"},
	MetricHookInputError:     {"route", "reason"},
	MetricBuildInfo:          {"version", "commit", "goversion"},
	MetricDecoderFallbacks:   nil,
	MetricDecoderPanics:      nil,
	MetricTLSHandshakeErrors: nil,
	MetricServerErrors:       {"class"},
	MetricConnsOpen:          nil,
	MetricConnsOverLimit:     {"action"},
}

// Every label value comes from a closed set written in this file or fixed
// at build time: a route the server registered, a status class, one of the
// three kinds, an admission operation, a Kubernetes status reason. Nothing a
// request carries (a name, a value, a path the server does not serve)
// becomes a label value, so the number of series is bounded and no secret
// can reach a scrape.
const (
	otherRoute = "other"
	otherValue = "other"
	noReason   = "none"
)

var (
	admissionKinds      = set("ControlPlane", "Glance", "GlanceBackend")
	admissionOperations = set("CREATE", "UPDATE", "DELETE", "CONNECT")
	// The reasons hooks/admission refuses with (metav1.StatusReason).
	admissionReasons = set("Invalid", "Forbidden", "ServiceUnavailable", "BadRequest")
	// Status codes of a request whose input the hook could not take, and
	// the reason label each is counted under.
	inputErrorReasons = map[int]string{
		http.StatusBadRequest:            "malformed",
		http.StatusRequestTimeout:        "body_timeout",
		http.StatusRequestEntityTooLarge: "too_large",
		http.StatusUnsupportedMediaType:  "unsupported_media_type",
		http.StatusUnprocessableEntity:   "invalid",
	}
)

// DurationBuckets resolve latencies up to the callers' timeouts:
// Metacontroller's hook timeout and the webhook's timeoutSeconds are both
// 10s by default, so the buckets are fine below a second, where answers
// are, and still tell 5s from 7.5s from 10s, where an alert on "p99 close to
// the timeout" needs them.
var DurationBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 7.5, 10, 15}

// Metrics are the service's Prometheus metrics, in a registry of their own
// (with the Go runtime and process collectors).
type Metrics struct {
	registry    *prometheus.Registry
	requests    *prometheus.CounterVec
	duration    *prometheus.HistogramVec
	inFlight    prometheus.Gauge
	admission   *prometheus.CounterVec
	inputErrors *prometheus.CounterVec
	handshakes  prometheus.Counter
	serverErrs  *prometheus.CounterVec
	connsOpen   prometheus.Gauge
	overLimit   *prometheus.CounterVec
}

// NewMetrics registers every metric; build_info is set from info at once.
func NewMetrics(info buildinfo.Info) *Metrics {
	m := &Metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: MetricRequests,
			Help: "HTTP requests answered, by route and status class (2xx, 3xx, 4xx, 5xx).",
		}, MetricLabels[MetricRequests]),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    MetricDuration,
			Help:    "Time from a request's arrival to its answer, body read included, by route.",
			Buckets: DurationBuckets,
		}, MetricLabels[MetricDuration]),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: MetricInFlight,
			Help: "HTTP requests being answered now, waiting for a slot included.",
		}),
		admission: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: MetricAdmission,
			Help: "Decisions of /validate, by kind, operation, outcome (allowed, denied) and reason of a denial " +
				"(Invalid: the object itself; Forbidden: a clash with a sibling; ServiceUnavailable: siblings could not be read, failed closed).",
		}, MetricLabels[MetricAdmission]),
		inputErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: MetricHookInputError,
			Help: "Requests to a hook or /validate refused for their input, by route and reason " +
				"(malformed, body_timeout, too_large, unsupported_media_type, invalid).",
		}, MetricLabels[MetricHookInputError]),
	}
	m.handshakes = prometheus.NewCounter(prometheus.CounterOpts{
		Name: MetricTLSHandshakeErrors,
		Help: "TLS handshakes that failed, on the hook and metrics listeners; the log shows a few a minute.",
	})
	m.serverErrs = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: MetricServerErrors,
		Help: "Errors the HTTP server logs of its connections (failed TLS handshakes, HTTP/2 prefaces and protocol errors, " +
			"accept errors, panics, other), by class; the log shows a few a minute of each.",
	}, MetricLabels[MetricServerErrors])
	for _, class := range ServerErrorClasses() {
		// Every class is a series from the start: an alert on its rate
		// needs no first error to see it.
		m.serverErrs.WithLabelValues(class)
	}
	m.connsOpen = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: MetricConnsOpen,
		Help: "Connections the hook listener holds open, those past --max-conns included.",
	})
	m.overLimit = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: MetricConnsOverLimit,
		Help: "Connections accepted past --max-conns, by action: 503 (answered 503, then closed) or closed (past twice the limit, closed unanswered).",
	}, MetricLabels[MetricConnsOverLimit])
	for _, action := range ConnsOverLimitActions {
		m.overLimit.WithLabelValues(action)
	}
	m.registry.MustRegister(m.requests, m.duration, m.inFlight, m.admission, m.inputErrors, m.handshakes, m.serverErrs, m.connsOpen, m.overLimit)
	m.registry.MustRegister(processCollectors(info)...)
	return m
}

// processCollectors are the series of the process rather than of its
// requests: the build, the fast JSON decoder's fallbacks, the Go runtime
// and the process.
func processCollectors(info buildinfo.Info) []prometheus.Collector {
	buildInfo := prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: MetricBuildInfo,
		Help: "Always 1; the labels say which build is running.",
	}, MetricLabels[MetricBuildInfo])
	buildInfo.WithLabelValues(info.Version, info.Commit, info.GoVersion).Set(1)
	fallbacks := prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: MetricDecoderFallbacks,
		Help: "Values the fast JSON decoder left to encoding/json (same answer, slower path).",
	}, func() float64 { n, _ := rawjson.Fallbacks(); return float64(n) })
	panics := prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: MetricDecoderPanics,
		Help: "Values the fast JSON decoder left to encoding/json because reading them panicked: a bug to report.",
	}, func() float64 { _, n := rawjson.Fallbacks(); return float64(n) })
	return []prometheus.Collector{buildInfo, fallbacks, panics,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})}
}

// Handler serves the metrics in Prometheus' text (or protobuf) format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{Registry: m.registry})
}

// MetricsServer serves GET /metrics alone, on a listener of its own: the
// hook ports are open to their one caller only, a scraper gets another.
func MetricsServer(m *Metrics, log *slog.Logger) *echo.Echo {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = errorHandler(log)
	e.StdLogger = serverErrorLog(log, m.serverErrorCounter())
	e.GET("/metrics", echo.WrapHandler(m.Handler()))
	return e
}

// Gatherer is the registry, for tests that read the metrics directly.
func (m *Metrics) Gatherer() prometheus.Gatherer { return m.registry }

// instrument counts every request of e, under its registered route (routes
// holds them) or "other".
func (m *Metrics) instrument(routes map[string]bool) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			m.inFlight.Inc()
			defer m.inFlight.Dec()
			start := time.Now()
			err := next(c)
			if err != nil {
				// What the logging middleware does otherwise: answer now,
				// so the status counted is the one sent.
				c.Error(err)
			}
			route := c.Path()
			if !routes[route] {
				route = otherRoute
			}
			status := c.Response().Status
			m.requests.WithLabelValues(route, strconv.Itoa(status/100)+"xx").Inc()
			m.duration.WithLabelValues(route).Observe(time.Since(start).Seconds())
			if reason, ok := inputErrorReasons[status]; ok && c.Request().Method == http.MethodPost && route != otherRoute {
				m.inputErrors.WithLabelValues(route, reason).Inc()
			}
			return nil
		}
	}
}

// admissionDecision counts one answer of /validate.
func (m *Metrics) admissionDecision(kind, operation string, allowed bool, reason string) {
	if m == nil {
		return
	}
	outcome := "allowed"
	if allowed {
		reason = noReason
	} else {
		outcome = "denied"
		reason = oneOf(admissionReasons, reason)
	}
	m.admission.WithLabelValues(oneOf(admissionKinds, kind), oneOf(admissionOperations, operation), outcome, reason).Inc()
}

func oneOf(known map[string]bool, v string) string {
	if known[v] {
		return v
	}
	return otherValue
}

func set(values ...string) map[string]bool {
	m := make(map[string]bool, len(values))
	for _, v := range values {
		m[v] = true
	}
	return m
}

// serverErrorCounter counts one server error line of a class: nowhere
// without metrics.
func (m *Metrics) serverErrorCounter() func(class string) {
	if m == nil {
		return nil
	}
	return func(class string) {
		m.serverErrs.WithLabelValues(class).Inc()
		if class == classTLSHandshake {
			m.handshakes.Inc()
		}
	}
}

// connOpened adds delta to the connections open.
func (m *Metrics) connOpened(delta float64) {
	if m != nil {
		m.connsOpen.Add(delta)
	}
}

// connOverLimit counts a connection past the limit.
func (m *Metrics) connOverLimit(action string) {
	if m != nil {
		m.overLimit.WithLabelValues(action).Inc()
	}
}
