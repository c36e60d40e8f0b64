package kubechain

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// webhook is one hook as Metacontroller calls it: its URL, a client that
// trusts the registration's CA, the token it sends.
type webhook struct {
	url    string
	client *http.Client
	auth   string
}

// webhook reads a hook's URL, CA and token as Metacontroller does when it
// starts a controller: the URL from the service ("<protocol>://<name>.<namespace>:<port><path>"),
// the CA and the token from the Secrets the registration names.
func (m *Metacontroller) webhook(ctx context.Context, spec Webhook) (*webhook, error) {
	u, err := spec.Endpoint()
	if err != nil {
		return nil, err
	}
	timeout := hookTimeout
	if spec.Timeout != "" {
		if timeout, err = time.ParseDuration(spec.Timeout); err != nil {
			return nil, fmt.Errorf("timeout: %w", err)
		}
	}
	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12}
	if spec.CABundle != nil && spec.CABundle.SecretRef != nil {
		ca, err := m.secretKey(ctx, *spec.CABundle.SecretRef)
		if err != nil {
			return nil, fmt.Errorf("caBundle: %w", err)
		}
		tlsConfig.RootCAs = x509.NewCertPool()
		if !tlsConfig.RootCAs.AppendCertsFromPEM(ca) {
			return nil, fmt.Errorf("caBundle: no PEM certificate")
		}
	}
	h := &webhook{url: u}
	if a := spec.Authorization; a != nil && a.SecretRef != nil {
		token, err := m.secretKey(ctx, *a.SecretRef)
		if err != nil {
			return nil, fmt.Errorf("authorization: %w", err)
		}
		h.auth = a.Type + " " + string(token)
	}
	dialer := &net.Dialer{Timeout: 5 * time.Second}
	h.client = &http.Client{Timeout: timeout, Transport: &http.Transport{
		TLSClientConfig:   tlsConfig,
		ForceAttemptHTTP2: true,
		// No cluster DNS runs here: a Service's name dials the address the
		// test gave for it.
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			to, ok := m.addrs[addr]
			if !ok {
				return nil, fmt.Errorf("no address for %s", addr)
			}
			return dialer.DialContext(ctx, network, to)
		},
	}}
	return h, nil
}

func (m *Metacontroller) secretKey(ctx context.Context, ref SecretKeyRef) ([]byte, error) {
	s, err := m.kube.CoreV1().Secrets(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	v, ok := s.Data[ref.Key]
	if !ok || len(v) == 0 {
		return nil, fmt.Errorf("key %s of Secret %s/%s is empty or missing", ref.Key, ref.Namespace, ref.Name)
	}
	return v, nil
}

// call posts a request to a hook and decodes the answer, which must be 200.
func (m *Metacontroller) call(ctx context.Context, h *webhook, request, answer any) error {
	body, err := json.Marshal(request)
	if err != nil {
		return err
	}
	if m.Sent != nil {
		m.Sent(h.url, body)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if h.auth != "" {
		req.Header.Set("Authorization", h.auth)
	}
	resp, err := h.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("POST %s: %s: %s", h.url, resp.Status, raw)
	}
	return json.Unmarshal(raw, answer)
}
