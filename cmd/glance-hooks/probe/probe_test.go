package probe_test

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/cmd/glance-hooks/probe"
	"github.com/c5c3/glance-hooks/test/testcert"
	"github.com/c5c3/glance-hooks/transport/server"
)

// serve runs h over TLS for the name "hooks.test" and returns its URL and
// a probe client trusting its CA.
func serve(t *testing.T, h http.Handler) (string, *http.Client) {
	t.Helper()
	pair, err := testcert.New("hooks.test", "hooks.test")
	require.NoError(t, err)
	cert, err := pair.TLSCertificate()
	require.NoError(t, err)
	srv := httptest.NewUnstartedServer(h)
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	ca := filepath.Join(t.TempDir(), "ca.crt")
	require.NoError(t, os.WriteFile(ca, pair.CertPEM, 0o600))
	c, err := probe.Client(ca, "hooks.test", 5*time.Second)
	require.NoError(t, err)
	return srv.URL, c
}

func TestProbeAgainstTheService(t *testing.T) {
	url, c := serve(t, server.New(server.Config{Logger: slog.New(slog.DiscardHandler), Routes: server.DefaultRoutes()}))
	ctx := context.Background()
	require.NoError(t, probe.Get(ctx, c, url+"/readyz"))
	msg, err := probe.Validate(ctx, c, url+"/validate", "glance-hooks")
	require.NoError(t, err)
	assert.Contains(t, msg, "exactly one backends entry must set isDefault")

	assert.ErrorContains(t, probe.Get(ctx, c, url+"/nope"), "answered 404 Not Found, want 200")
	_, err = probe.Validate(ctx, c, url+"/sync/glance", "glance-hooks")
	assert.Error(t, err, "a route that is not the webhook")
}

func TestProbeNoticesAWrongAnswer(t *testing.T) {
	answer := func(allowed bool, message string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var rev map[string]any
			_ = json.NewDecoder(r.Body).Decode(&rev)
			uid := rev["request"].(map[string]any)["uid"]
			_ = json.NewEncoder(w).Encode(map[string]any{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
				"response": map[string]any{"uid": uid, "allowed": allowed, "status": map[string]any{"message": message}}})
		})
	}
	ctx := context.Background()
	url, c := serve(t, answer(true, ""))
	_, err := probe.Validate(ctx, c, url, "ns")
	assert.ErrorContains(t, err, "was allowed")
	url, c = serve(t, answer(false, "something else"))
	_, err = probe.Validate(ctx, c, url, "ns")
	assert.ErrorContains(t, err, `refused with "something else"`)
}

func TestProbeTrustsOnlyTheGivenCA(t *testing.T) {
	url, _ := serve(t, http.NotFoundHandler())
	other, err := testcert.New("other", "hooks.test")
	require.NoError(t, err)
	ca := filepath.Join(t.TempDir(), "ca.crt")
	require.NoError(t, os.WriteFile(ca, other.CertPEM, 0o600))
	c, err := probe.Client(ca, "hooks.test", 5*time.Second)
	require.NoError(t, err)
	assert.ErrorContains(t, probe.Get(context.Background(), c, url), "certificate signed by unknown authority")
}
