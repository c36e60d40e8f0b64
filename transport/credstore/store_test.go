package credstore

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/c5c3/glance-hooks/internal/credentials"
)

const ns = "glance-hooks"

var start = time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)

// cluster holds the two Secrets the chart renders empty and the webhook
// configuration; the scheme is the test's only, the service links none.
func cluster() *fake.FakeDynamicClient {
	empty := func(name string) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Type: corev1.SecretTypeOpaque}
	}
	vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "glance-hooks"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{Name: "validate.glance.openstack.c5c3.io"}}}
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		panic(err)
	}
	if err := admissionregistrationv1.AddToScheme(scheme); err != nil {
		panic(err)
	}
	return fake.NewSimpleDynamicClient(scheme, empty("glance-hooks-certs"), empty("glance-hooks-token"), vwc)
}

func store(t *testing.T, c *fake.FakeDynamicClient, at *time.Time) (*Store, Config) {
	t.Helper()
	dir := t.TempDir()
	cfg := Config{Namespace: ns, TLSSecret: "glance-hooks-certs", TokenSecret: "glance-hooks-token", Webhook: "glance-hooks",
		Policy: credentials.Policy{Hosts: []string{"glance-hooks.glance-hooks.svc"}, CAValidity: 3650 * 24 * time.Hour,
			CertValidity: 365 * 24 * time.Hour, RenewBefore: 30 * 24 * time.Hour},
		TLSDir: dir, TokenFile: filepath.Join(dir, "token")}
	s := New(c, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	s.now = func() time.Time { return *at }
	return s, cfg
}

func secretData(t *testing.T, c *fake.FakeDynamicClient, name string) map[string][]byte {
	t.Helper()
	var s corev1.Secret
	if err := getInto(context.Background(), c.Resource(secretResource).Namespace(ns), name, &s); err != nil {
		t.Fatal(err)
	}
	return s.Data
}

func caBundle(t *testing.T, c *fake.FakeDynamicClient) []byte {
	t.Helper()
	var v admissionregistrationv1.ValidatingWebhookConfiguration
	if err := getInto(context.Background(), c.Resource(webhookResource), "glance-hooks", &v); err != nil {
		t.Fatal(err)
	}
	return v.Webhooks[0].ClientConfig.CABundle
}

func writes(c *fake.FakeDynamicClient) int {
	n := 0
	for _, a := range c.Actions() {
		if a.GetVerb() != "get" {
			n++
		}
	}
	return n
}

func read(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The chart's empty Secrets are filled, the webhook trusts the CA, the
// files are what the Secrets hold; a second Sync writes nothing.
func TestSyncFillsThenKeeps(t *testing.T) {
	c, at := cluster(), start
	s, cfg := store(t, c, &at)
	if err := s.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	tlsData, tok := secretData(t, c, cfg.TLSSecret), secretData(t, c, cfg.TokenSecret)
	if len(tlsData[credentials.KeyCert]) == 0 || !credentials.TokenUsable(tok[credentials.KeyToken]) {
		t.Fatalf("the Secrets were not filled: %v, token %q", keys(tlsData), tok[credentials.KeyToken])
	}
	if !bytes.Equal(caBundle(t, c), tlsData[credentials.KeyCA]) {
		t.Error("the webhook's caBundle is not the Secret's CA")
	}
	for _, k := range []string{credentials.KeyCert, credentials.KeyKey, credentials.KeyCA} {
		if !bytes.Equal(read(t, filepath.Join(cfg.TLSDir, k)), tlsData[k]) {
			t.Errorf("%s on disk differs from the Secret", k)
		}
	}
	if _, err := os.Stat(filepath.Join(cfg.TLSDir, credentials.KeyCAKey)); err == nil {
		t.Error("the CA key was written to disk: the serving containers must not hold it")
	}
	if !bytes.Equal(read(t, cfg.TokenFile), tok[credentials.KeyToken]) {
		t.Error("the token on disk differs from the Secret")
	}
	before := writes(c)
	s2, _ := store(t, c, &at)
	if err := s2.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := writes(c) - before; n != 0 {
		t.Errorf("a second start wrote %d times, want none", n)
	}
}

// Inside the renewal window the certificate is renewed with the same CA,
// so the caBundle stays; the files follow.
func TestSyncRenewsNearExpiry(t *testing.T) {
	c, at := cluster(), start
	s, cfg := store(t, c, &at)
	if err := s.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	first := secretData(t, c, cfg.TLSSecret)
	at = start.Add(340 * 24 * time.Hour)
	if err := s.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	renewed := secretData(t, c, cfg.TLSSecret)
	if bytes.Equal(first[credentials.KeyCert], renewed[credentials.KeyCert]) {
		t.Fatal("the certificate was not renewed")
	}
	if !bytes.Equal(first[credentials.KeyCA], renewed[credentials.KeyCA]) || !bytes.Equal(caBundle(t, c), renewed[credentials.KeyCA]) {
		t.Error("renewing the certificate changed the CA or left the caBundle behind")
	}
	if !bytes.Equal(read(t, filepath.Join(cfg.TLSDir, credentials.KeyCert)), renewed[credentials.KeyCert]) {
		t.Error("the renewed certificate was not written")
	}
}

// Another replica writing first is a conflict: its result is read back and
// used, not overwritten.
func TestSyncConflictUsesTheWinner(t *testing.T) {
	c, at := cluster(), start
	s, cfg := store(t, c, &at)
	winner, _ := store(t, cluster(), &at)
	won, _, err := winner.planTLS(nil)
	if err != nil {
		t.Fatal(err)
	}
	conflicted := false
	c.PrependReactor("update", "secrets", func(a k8stesting.Action) (bool, runtime.Object, error) {
		u := a.(k8stesting.UpdateAction).GetObject().(*unstructured.Unstructured)
		if conflicted || u.GetName() != cfg.TLSSecret {
			return false, nil, nil
		}
		conflicted = true
		// The other replica's write lands first.
		stored, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&corev1.Secret{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
			ObjectMeta: metav1.ObjectMeta{Name: u.GetName(), Namespace: ns}, Data: won})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Tracker().Update(secretResource, &unstructured.Unstructured{Object: stored}, ns); err != nil {
			t.Fatal(err)
		}
		return true, nil, apierrors.NewConflict(schema.GroupResource{Resource: "secrets"}, u.GetName(), nil)
	})
	if err := s.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !conflicted {
		t.Fatal("the conflict was never provoked")
	}
	if got := secretData(t, c, cfg.TLSSecret); !bytes.Equal(got[credentials.KeyCert], won[credentials.KeyCert]) {
		t.Error("the winner's certificate was overwritten")
	}
	if !bytes.Equal(read(t, filepath.Join(cfg.TLSDir, credentials.KeyCert)), won[credentials.KeyCert]) {
		t.Error("the files are not the winner's")
	}
}

// A Secret that is gone is not made (the RBAC grants no create): the error
// says how to get it back, and nothing is written.
func TestSyncMissingSecret(t *testing.T) {
	c, at := cluster(), start
	if err := c.Resource(secretResource).Namespace(ns).Delete(context.Background(), "glance-hooks-certs", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	s, cfg := store(t, c, &at)
	err := s.Sync(context.Background())
	if err == nil || !strings.Contains(err.Error(), "helm upgrade") {
		t.Fatalf("Sync = %v, want an error saying to run helm upgrade", err)
	}
	if _, err := os.Stat(filepath.Join(cfg.TLSDir, credentials.KeyCert)); err == nil {
		t.Error("a certificate was written without a Secret to keep it")
	}
	if len(caBundle(t, c)) != 0 {
		t.Error("the caBundle was set without a Secret")
	}
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
