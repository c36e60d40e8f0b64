// Package probe checks a running glance-hooks from where its callers are:
// `glance-hooks probe`, which `helm test` runs in the cluster, fetches URLs
// over TLS with the release's CA and asks /validate one question whose
// answer this build's own rules give, so a pass means the Service routes,
// the certificate, the CA and the webhook's code all work together.
package probe

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/c5c3/glance-hooks/hooks/admission"
	"github.com/c5c3/glance-hooks/hooks/contract/api"
)

// Client is an HTTPS client that trusts only the CA in caFile and, when
// serverName is set, checks the certificate for that name rather than the
// URL's host (for a URL that names an address).
func Client(caFile, serverName string, timeout time.Duration) (*http.Client, error) {
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("reading the CA: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%s holds no PEM certificate", caFile)
	}
	return &http.Client{Timeout: timeout, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: serverName, MinVersion: tls.VersionTLS12},
	}}, nil
}

// Get fetches url and wants 200.
func Get(ctx context.Context, c *http.Client, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("answered %s, want 200", resp.Status)
	}
	return nil
}

// Question is the AdmissionReview Validate sends: a CREATE of a ControlPlane
// with two default stores in namespace, which the rules refuse without
// reading the API.
func Question(namespace string) *admissionv1.AdmissionReview {
	entry := func(name string) map[string]any {
		return map[string]any{"name": name, "type": "S3", "isDefault": true, "s3": map[string]any{
			"endpoint": "http://s3.invalid:3900", "bucket": name, "credentialsSecretRef": map[string]any{"name": "probe"},
		}}
	}
	obj, _ := json.Marshal(map[string]any{
		"apiVersion": api.ControlPlaneAPIVersion, "kind": api.KindControlPlane,
		"metadata": map[string]any{"name": "glance-hooks-probe", "namespace": namespace},
		"spec":     map[string]any{"services": map[string]any{"glance": map[string]any{"backends": []any{entry("one"), entry("two")}}}},
	})
	gv, _ := schema.ParseGroupVersion(api.ControlPlaneAPIVersion)
	group, version := gv.Group, gv.Version
	return &admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: admission.ReviewAPIVersion, Kind: admission.ReviewKind},
		Request: &admissionv1.AdmissionRequest{
			UID:       types.UID("glance-hooks-probe"),
			Kind:      metav1.GroupVersionKind{Group: group, Version: version, Kind: api.KindControlPlane},
			Resource:  metav1.GroupVersionResource{Group: group, Version: version, Resource: "controlplanes"},
			Name:      "glance-hooks-probe",
			Namespace: namespace,
			Operation: admissionv1.Create,
			Object:    runtime.RawExtension{Raw: obj},
			DryRun:    ptr(true),
		},
	}
}

func ptr[T any](v T) *T { return &v }

// Validate posts Question to url and wants the answer this build's own rules
// give to it: refused, with the same message. It returns that message.
func Validate(ctx context.Context, c *http.Client, url, namespace string) (string, error) {
	q := Question(namespace)
	want := admission.Review(ctx, q.Request, nil)
	if want.Allowed || want.Result == nil {
		return "", errors.New("this build's rules allow the probe's question; it cannot tell a working webhook from a broken one")
	}
	body, err := json.Marshal(q)
	if err != nil {
		return "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("answered %s, want 200 with an AdmissionReview", resp.Status)
	}
	var got admissionv1.AdmissionReview
	if err := json.Unmarshal(raw, &got); err != nil || got.Response == nil {
		return "", errors.New("the answer is not an AdmissionReview")
	}
	switch r := got.Response; {
	case r.UID != q.Request.UID:
		return "", fmt.Errorf("the answer is for uid %q, not %q", r.UID, q.Request.UID)
	case r.Allowed:
		return "", errors.New("a ControlPlane with two default stores was allowed")
	case r.Result == nil || r.Result.Message != want.Result.Message:
		msg := ""
		if r.Result != nil {
			msg = r.Result.Message
		}
		return "", fmt.Errorf("refused with %q, want %q (is the service another version?)", msg, want.Result.Message)
	}
	return want.Result.Message, nil
}
