package server

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"

	"github.com/labstack/echo/v4"
)

// TokenFile is the shared secret Metacontroller sends as
// "Authorization: Bearer <token>" (its hook webhook's `authorization`,
// read from the same Secret this file is mounted from). The file is read
// on every request and loaded again when its content differs from the
// last read, so a rotated Secret is picked up without a restart. Content,
// not size and mtime: a token rewritten in place with one of the same
// length and the old mtime (a restored backup, `touch -r`, a clock that
// went back) changes neither. One read of a file this small costs a few
// microseconds, against the milliseconds of the hook it guards. A file
// that stops loading (empty, unreadable) is logged once and the last good
// token stays in force.
type TokenFile struct {
	path string
	log  *slog.Logger

	mu     sync.Mutex
	sum    [sha256.Size]byte // of the token in force
	seen   [sha256.Size]byte // of the file's content as last read
	failed bool
}

// maxTokenFileBytes bounds what is read of the file: a token is a line,
// and a file that grew to megabytes is not one.
const maxTokenFileBytes = 64 << 10

// NewTokenFile loads the token once; a file that does not hold one is an
// error, so a misconfigured service stops at start.
func NewTokenFile(path string, log *slog.Logger) (*TokenFile, error) {
	if log == nil {
		log = slog.Default()
	}
	t := &TokenFile{path: path, log: log}
	raw, err := readTokenFile(path)
	if err == nil {
		err = t.load(raw)
	}
	if err != nil {
		return nil, err
	}
	return t, nil
}

// Matches tells whether got is the token. Both sides are hashed first, so
// the comparison takes the same time whatever got is, its length included.
func (t *TokenFile) Matches(got string) bool {
	t.mu.Lock()
	if err := t.refreshLocked(); err != nil && !t.failed {
		t.log.Error("auth token reload failed; the previous token stays in force", "file", t.path, "error", err.Error())
		t.failed = true
	}
	want := t.sum
	t.mu.Unlock()
	sum := sha256.Sum256([]byte(got))
	return subtle.ConstantTimeCompare(sum[:], want[:]) == 1
}

// refreshLocked reads the file and loads it when its content is not what
// was last read; a file that does not load is not loaded again until its
// content changes. One that cannot be read has no content: whatever it
// holds once it can be read again is loaded.
func (t *TokenFile) refreshLocked() error {
	raw, err := readTokenFile(t.path)
	if err != nil {
		t.seen = [sha256.Size]byte{}
		return err
	}
	if sha256.Sum256(raw) == t.seen {
		return nil
	}
	return t.load(raw)
}

func readTokenFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading the auth token file: %w", err)
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, maxTokenFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading the auth token file: %w", err)
	}
	return raw, nil
}

// load takes raw, the file's content, as the token when it holds one.
func (t *TokenFile) load(raw []byte) error {
	t.seen = sha256.Sum256(raw)
	if len(raw) > maxTokenFileBytes {
		return fmt.Errorf("the auth token file is larger than %d bytes", maxTokenFileBytes)
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
