package server

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
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

// TLSConfig is a server tls.Config that serves the reloaded pair; see
// ServerTLSConfig.
func (r *CertReloader) TLSConfig() *tls.Config {
	return ServerTLSConfig(r.GetCertificate)
}

// ModernCipherSuites are the TLS 1.2 suites the service accepts: forward
// secrecy (ECDHE) and an AEAD cipher only, no CBC, no RSA key exchange.
// TLS 1.3 suites are all of that kind and not configurable in Go. The API
// server's and Metacontroller's Go clients offer these first.
var ModernCipherSuites = []uint16{
	tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
	tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
	tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
	tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
	tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
	tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
}

// RequestClientCerts has cfg verify a client certificate against the PEM CA
// bundle caPEM whenever the client presents one. It is not demanded in the
// handshake, because the kubelet's HTTPS probes present none; the POST
// routes demand it (Config.RequireClientCert).
func RequestClientCerts(cfg *tls.Config, caPEM []byte) error {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return errors.New("the client CA file holds no PEM certificate")
	}
	cfg.ClientCAs = pool
	cfg.ClientAuth = tls.VerifyClientCertIfGiven
	return nil
}

// ServerTLSConfig is how every listener of the service speaks TLS: 1.2 or
// later, ModernCipherSuites for 1.2, the certificate from getCert.
func ServerTLSConfig(getCert func(*tls.ClientHelloInfo) (*tls.Certificate, error)) *tls.Config {
	return &tls.Config{
		MinVersion:     tls.VersionTLS12,
		CipherSuites:   ModernCipherSuites,
		GetCertificate: getCert,
	}
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
