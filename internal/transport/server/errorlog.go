package server

import (
	"bytes"
	stdlog "log"
	"log/slog"
)

// maxServerErrorBytes caps one http.Server error in the log. Its messages
// are short, but a few quote what a client sent (a malformed header line,
// a TLS record), which must not fill the log.
const maxServerErrorBytes = 256

// serverErrorLog turns what http.Server logs itself (TLS handshake failures,
// malformed requests, panics outside the handler) into JSON lines on log.
func serverErrorLog(log *slog.Logger) *stdlog.Logger {
	return stdlog.New(serverErrorWriter{log}, "", 0)
}

type serverErrorWriter struct{ log *slog.Logger }

func (w serverErrorWriter) Write(p []byte) (int, error) {
	msg := bytes.TrimSpace(p)
	truncated := len(msg) > maxServerErrorBytes
	if truncated {
		msg = msg[:maxServerErrorBytes]
	}
	what := "http server error"
	if bytes.Contains(msg, []byte("TLS handshake error")) {
		what = "TLS handshake failed"
	}
	attrs := []any{"error", string(bytes.ToValidUTF8(msg, []byte("?")))}
	if truncated {
		attrs = append(attrs, "truncated", true)
	}
	w.log.Warn(what, attrs...)
	return len(p), nil
}
