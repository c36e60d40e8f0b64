package server

import (
	"bytes"
	stdlog "log"
	"log/slog"
	"sync"
	"time"
)

// maxServerErrorBytes caps one http.Server error in the log. Its messages
// are short, but a few quote what a client sent (a malformed header line,
// a TLS record, an HTTP/2 preface), which must not fill the log.
const maxServerErrorBytes = 256

// The lines of each class of server error are logged at most
// serverErrorLogBurst times per serverErrorLogWindow; the rest are counted
// in the log once the window is over and all of them in MetricServerErrors.
// Any client that reaches the port can make the server write these lines
// (a port or cipher scan fails hundreds of TLS handshakes a second; 2,000
// connections sending a bad HTTP/2 preface gave 1,334 lines in 7 s before
// HTTP/2 errors had a limit), and a line each would bury the request log.
// A few lines say what fails, the counter says how often. Each class has
// its own budget, so a flood of one does not hide the first lines of
// another.
const (
	serverErrorLogBurst  = 10
	serverErrorLogWindow = time.Minute
)

// serverErrorClass is one kind of line http.Server (and its HTTP/2 server)
// writes: its label in MetricServerErrors and the key its lines are
// throttled by.
type serverErrorClass struct {
	name string
	// marks: a line holding any of them is of this class.
	marks []string
	// msg is the log line's message.
	msg string
}

// serverErrorClasses, tried in order; a line matching none is
// classOther. The marks are net/http's own words (server.go and
// h2_bundle.go of Go 1.26).
var serverErrorClasses = []serverErrorClass{
	{name: classTLSHandshake, marks: []string{"TLS handshake error"}, msg: "TLS handshake failed"},
	{name: "http2_preface", marks: []string{"http2: server: error reading preface"}, msg: "HTTP/2 preface refused"},
	{name: "http2_protocol", msg: "HTTP/2 connection failed", marks: []string{
		"http2: server connection error", "http2: server closing client connection",
		"timeout waiting for SETTINGS", "timeout waiting for PING",
	}},
	{name: "panic", marks: []string{"panic serving"}, msg: "panic serving a connection"},
	{name: "accept", marks: []string{"http: Accept error"}, msg: "accepting a connection failed"},
}

// classTLSHandshake is also counted in MetricTLSHandshakeErrors.
const classTLSHandshake = "tls_handshake"

var classOther = serverErrorClass{name: "other", msg: "http server error"}

// ServerErrorClasses are the values of MetricServerErrors' class label.
func ServerErrorClasses() []string {
	names := []string{classOther.name}
	for _, c := range serverErrorClasses {
		names = append(names, c.name)
	}
	return names
}

func classify(msg []byte) serverErrorClass {
	for _, c := range serverErrorClasses {
		for _, m := range c.marks {
			if bytes.Contains(msg, []byte(m)) {
				return c
			}
		}
	}
	return classOther
}

// serverErrorLog turns what http.Server logs itself (TLS handshake failures,
// HTTP/2 protocol errors, malformed requests, panics outside the handler)
// into JSON lines on log, each counted by class with count (nil: not
// counted) and rate-limited per class.
func serverErrorLog(log *slog.Logger, count func(class string)) *stdlog.Logger {
	return stdlog.New(&serverErrorWriter{log: log, count: count, now: time.Now}, "", 0)
}

type serverErrorWriter struct {
	log   *slog.Logger
	count func(class string)
	now   func() time.Time

	mu      sync.Mutex
	windows map[string]*logWindow
}

// logWindow is what one class logged in its current window.
type logWindow struct {
	start      time.Time
	logged     int
	suppressed int
}

func (w *serverErrorWriter) Write(p []byte) (int, error) {
	msg := bytes.TrimSpace(p)
	truncated := len(msg) > maxServerErrorBytes
	if truncated {
		msg = msg[:maxServerErrorBytes]
	}
	class := classify(msg)
	if w.count != nil {
		w.count(class.name)
	}
	if !w.admit(class.name) {
		return len(p), nil
	}
	attrs := []any{"class", class.name, "error", string(bytes.ToValidUTF8(msg, []byte("?")))}
	if truncated {
		attrs = append(attrs, "truncated", true)
	}
	w.log.Warn(class.msg, attrs...)
	return len(p), nil
}

// admit says whether this line of class gets logged, and when the class's
// window ends logs how many of the last one were not.
func (w *serverErrorWriter) admit(class string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.windows == nil {
		w.windows = map[string]*logWindow{}
	}
	win := w.windows[class]
	if win == nil {
		win = &logWindow{}
		w.windows[class] = win
	}
	now := w.now()
	if now.Sub(win.start) >= serverErrorLogWindow {
		if win.suppressed > 0 {
			w.log.Warn("server errors not logged", "class", class, "count", win.suppressed,
				"window", serverErrorLogWindow.String(), "metric", MetricServerErrors)
		}
		*win = logWindow{start: now}
	}
	if win.logged >= serverErrorLogBurst {
		win.suppressed++
		return false
	}
	win.logged++
	return true
}
