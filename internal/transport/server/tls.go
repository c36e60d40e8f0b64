package server

import (
	"crypto/tls"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"
)

// CertReloader serves a certificate and key from files and picks up a new
// pair when either file changes (a cert-manager renewal, or a Secret volume's
// symlink swap). It checks the files on each TLS handshake, which costs two
// stats; a pair that does not load (say the cert is written and the key not
// yet) is logged and the last good pair keeps being served.
type CertReloader struct {
	certFile, keyFile string
	log               *slog.Logger

	mu       sync.Mutex
	cert     *tls.Certificate
	certStat os.FileInfo
	keyStat  os.FileInfo
	failed   bool
}

// NewCertReloader loads the pair once; a pair that does not load now is an
// error, so a misconfigured service stops at start.
func NewCertReloader(certFile, keyFile string, log *slog.Logger) (*CertReloader, error) {
	if log == nil {
		log = slog.Default()
	}
	r := &CertReloader{certFile: certFile, keyFile: keyFile, log: log}
	if err := r.reload(); err != nil {
		return nil, err
	}
	return r, nil
}

// GetCertificate is for tls.Config.GetCertificate.
func (r *CertReloader) GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.changed() {
		if err := r.reloadLocked(); err != nil {
			if !r.failed {
				r.log.Error("TLS certificate reload failed; serving the previous one", "cert", r.certFile, "key", r.keyFile, "error", err.Error())
				r.failed = true
			}
		}
	}
	return r.cert, nil
}

// TLSConfig is a server tls.Config that serves the reloaded pair.
func (r *CertReloader) TLSConfig() *tls.Config {
	return &tls.Config{MinVersion: tls.VersionTLS12, GetCertificate: r.GetCertificate}
}

func (r *CertReloader) reload() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reloadLocked()
}

func (r *CertReloader) reloadLocked() error {
	cs, err1 := os.Stat(r.certFile)
	ks, err2 := os.Stat(r.keyFile)
	cert, err := tls.LoadX509KeyPair(r.certFile, r.keyFile)
	if err == nil {
		err = err1
	}
	if err == nil {
		err = err2
	}
	if err != nil {
		// Remember what was seen, so a broken pair is retried only when the
		// files change again, not on every handshake.
		r.certStat, r.keyStat = cs, ks
		return fmt.Errorf("loading the TLS key pair: %w", err)
	}
	if r.cert != nil {
		attrs := []any{"cert", r.certFile}
		if cert.Leaf != nil {
			attrs = append(attrs, "not_after", cert.Leaf.NotAfter.UTC().Format(time.RFC3339))
		}
		r.log.Info("TLS certificate reloaded", attrs...)
	}
	r.cert, r.certStat, r.keyStat, r.failed = &cert, cs, ks, false
	return nil
}

// changed reports whether either file differs from what was last loaded.
func (r *CertReloader) changed() bool {
	return statChanged(r.certStat, r.certFile) || statChanged(r.keyStat, r.keyFile)
}

func statChanged(old os.FileInfo, path string) bool {
	now, err := os.Stat(path)
	if err != nil || old == nil {
		return err == nil
	}
	return !os.SameFile(old, now) || !now.ModTime().Equal(old.ModTime()) || now.Size() != old.Size()
}
