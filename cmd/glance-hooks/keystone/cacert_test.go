package keystone

import (
	"context"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/hooks/contract/registration"
)

// fakeKeystone answers a v3 password authentication over TLS with a
// certificate of its own CA, listing itself as the identity endpoint: all
// Connect needs to get past the TLS check.
func fakeKeystone(t *testing.T) (authURL string, caPEM []byte) {
	t.Helper()
	var url string
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v3/auth/tokens" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("X-Subject-Token", "tok")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte(`{"token": {"expires_at": "2099-01-01T00:00:00.000000Z", "catalog": [{"type": "identity", "name": "keystone",
			"endpoints": [{"interface": "public", "region": "RegionOne", "region_id": "RegionOne", "url": "` + url + `/v3"}]}]}}`))
	}))
	t.Cleanup(srv.Close)
	url = srv.URL
	return srv.URL + "/v3", pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
}

func adminEnv(authURL, caCert string) func(string) string {
	env := map[string]string{registration.EnvAuthURL: authURL, registration.EnvUsername: "admin",
		registration.EnvPassword: "secret", registration.EnvProjectName: "admin", registration.EnvCACert: caCert}
	return func(k string) string { return env[k] }
}

// An https Keystone whose CA is not among the system's roots is reached
// with OS_CACERT, given as the PEM itself (a Secret's key as a variable)
// or as a file's path; without it the TLS check refuses the server.
func TestConnectTrustsOSCACert(t *testing.T) {
	authURL, caPEM := fakeKeystone(t)
	file := filepath.Join(t.TempDir(), "ca.pem")
	require.NoError(t, os.WriteFile(file, caPEM, 0o600))
	ctx := context.Background()

	for name, value := range map[string]string{"PEM": string(caPEM), "path": file} {
		a, err := AdminFromEnv(adminEnv(authURL, value))
		require.NoError(t, err, name)
		_, err = Connect(ctx, a)
		assert.NoError(t, err, name)
	}

	a, err := AdminFromEnv(adminEnv(authURL, ""))
	require.NoError(t, err)
	_, err = Connect(ctx, a)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "certificate signed by unknown authority")
	assert.NotContains(t, err.Error(), "secret", "the admin's password is masked")
}

// A bundle that is not one is refused before any call, naming where it
// came from and never its content.
func TestCACertFromRefusesWhatIsNoBundle(t *testing.T) {
	cases := map[string]struct{ value, want string }{
		"missing file": {"/nonexistent/ca.pem", "OS_CACERT: reading the CA bundle"},
		"not PEM":      {"-----BEGIN nothing-----\nsecret-looking\n", "OS_CACERT holds no PEM certificate"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := AdminFromEnv(adminEnv("https://keystone.example:5000/v3", tc.value))
			require.Error(t, err)
			assert.True(t, IsRefused(err), "a bad bundle cannot be fixed by running again")
			assert.Contains(t, err.Error(), tc.want)
			assert.False(t, strings.Contains(err.Error(), "secret-looking"), "the value is not echoed")
		})
	}
	pem, err := CACertFrom("  ", "x")
	assert.NoError(t, err)
	assert.Nil(t, pem, "empty: the system's roots")
}
