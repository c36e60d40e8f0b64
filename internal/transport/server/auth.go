package server

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"

	"github.com/labstack/echo/v4"
)

// TokenFile is the shared secret Metacontroller sends as
// "Authorization: Bearer <token>" (its hook webhook's `authorization`,
// read from the same Secret this file is mounted from). The file is checked
// on every request, one stat, and read again when it changes, so a rotated
// Secret is picked up without a restart. A file that stops loading (empty,
// unreadable) is logged and the last good token stays in force.
type TokenFile struct {
	path string
	log  *slog.Logger

	mu     sync.Mutex
	sum    [sha256.Size]byte
	stat   os.FileInfo
	failed bool
}

// NewTokenFile loads the token once; a file that does not hold one is an
// error, so a misconfigured service stops at start.
func NewTokenFile(path string, log *slog.Logger) (*TokenFile, error) {
	if log == nil {
		log = slog.Default()
	}
	t := &TokenFile{path: path, log: log}
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.loadLocked(); err != nil {
		return nil, err
	}
	return t, nil
}

// Matches tells whether got is the token. Both sides are hashed first, so
// the comparison takes the same time whatever got is, its length included.
func (t *TokenFile) Matches(got string) bool {
	t.mu.Lock()
	if statChanged(t.stat, t.path) {
		if err := t.loadLocked(); err != nil && !t.failed {
			t.log.Error("auth token reload failed; the previous token stays in force", "file", t.path, "error", err.Error())
			t.failed = true
		}
	}
	want := t.sum
	t.mu.Unlock()
	sum := sha256.Sum256([]byte(got))
	return subtle.ConstantTimeCompare(sum[:], want[:]) == 1
}

func (t *TokenFile) loadLocked() error {
	st, statErr := os.Stat(t.path)
	raw, err := os.ReadFile(t.path)
	if err == nil {
		err = statErr
	}
	// Remember what was seen, so a broken file is read again only when it
	// changes again, not on every request.
	t.stat = st
	if err != nil {
		return fmt.Errorf("reading the auth token file: %w", err)
	}
	// Metacontroller trims the Secret's value before it sends it; so do we.
	tok := bytes.TrimSpace(raw)
	if len(tok) == 0 {
		return errors.New("the auth token file is empty")
	}
	if bytes.ContainsFunc(tok, func(r rune) bool { return r < 0x21 || r == 0x7f }) {
		return errors.New("the auth token holds a blank or control character, which an HTTP header cannot carry")
	}
	if t.failed {
		t.log.Info("auth token reloaded", "file", t.path)
	}
	t.sum, t.failed = sha256.Sum256(tok), false
	return nil
}

// requireBearer answers 401 to a request that does not carry the token, before
// its body is read.
func requireBearer(tok *TokenFile) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			scheme, cred, ok := strings.Cut(c.Request().Header.Get(echo.HeaderAuthorization), " ")
			if !ok || !strings.EqualFold(scheme, "Bearer") || !tok.Matches(strings.TrimSpace(cred)) {
				c.Response().Header().Set(echo.HeaderWWWAuthenticate, `Bearer realm="glance-hooks"`)
				return newHTTPError(http.StatusUnauthorized, "this hook answers only its caller: send the token of the hook's authorization Secret as a Bearer token")
			}
			return next(c)
		}
	}
}

// requireClientCert answers 401 to a request whose connection presented no
// verified client certificate.
func requireClientCert(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if st := c.Request().TLS; st == nil || len(st.VerifiedChains) == 0 {
			return newHTTPError(http.StatusUnauthorized, "this hook answers only its caller: present a client certificate signed by the configured client CA")
		}
		return next(c)
	}
}
