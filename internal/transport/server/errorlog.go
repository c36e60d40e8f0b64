package server

import (
	"bytes"
	stdlog "log"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// maxServerErrorBytes caps one http.Server error in the log. Its messages
// are short, but a few quote what a client sent (a malformed header line,
// a TLS record), which must not fill the log.
const maxServerErrorBytes = 256

// Failed TLS handshakes are logged at most handshakeLogBurst times per
// handshakeLogWindow; the rest are counted in the log once the window is
// over and all of them in MetricTLSHandshakeErrors. A port scan or a cipher
// scan fails hundreds of handshakes a second, and a line each would bury
// the request log; a few lines say what fails, the counter says how often.
const (
	handshakeLogBurst  = 10
	handshakeLogWindow = time.Minute
)

// serverErrorLog turns what http.Server logs itself (TLS handshake failures,
// malformed requests, panics outside the handler) into JSON lines on log;
// failed handshakes are counted in failed (nil: not counted) and their lines
// rate-limited.
func serverErrorLog(log *slog.Logger, failed prometheus.Counter) *stdlog.Logger {
	return stdlog.New(&serverErrorWriter{log: log, failed: failed, now: time.Now}, "", 0)
}

type serverErrorWriter struct {
	log    *slog.Logger
	failed prometheus.Counter
	now    func() time.Time

	mu          sync.Mutex
	windowStart time.Time
	logged      int // handshake lines logged in this window
	suppressed  int // handshake failures not logged in this window
}

func (w *serverErrorWriter) Write(p []byte) (int, error) {
	msg := bytes.TrimSpace(p)
	truncated := len(msg) > maxServerErrorBytes
	if truncated {
		msg = msg[:maxServerErrorBytes]
	}
	what := "http server error"
	if bytes.Contains(msg, []byte("TLS handshake error")) {
		what = "TLS handshake failed"
		if w.failed != nil {
			w.failed.Inc()
		}
		if !w.admitHandshakeLine() {
			return len(p), nil
		}
	}
	attrs := []any{"error", string(bytes.ToValidUTF8(msg, []byte("?")))}
	if truncated {
		attrs = append(attrs, "truncated", true)
	}
	w.log.Warn(what, attrs...)
	return len(p), nil
}

// admitHandshakeLine says whether this failed handshake gets its line, and
// when a window ends logs how many of the last one did not.
func (w *serverErrorWriter) admitHandshakeLine() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	now := w.now()
	if now.Sub(w.windowStart) >= handshakeLogWindow {
		if w.suppressed > 0 {
			w.log.Warn("TLS handshake failures not logged", "count", w.suppressed,
				"window", handshakeLogWindow.String(), "metric", MetricTLSHandshakeErrors)
		}
		w.windowStart, w.logged, w.suppressed = now, 0, 0
	}
	if w.logged >= handshakeLogBurst {
		w.suppressed++
		return false
	}
	w.logged++
	return true
}
