package services

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/test/testcert"
)

// The TLS parameters the Glance hooks put into the database URL, tried with
// Debian's SQLAlchemy and PyMySQL against a user that must present a
// certificate: in the clear the user is refused; with the client
// certificate it logs in; verify-full refuses a server its CA did not sign
// and a host name the certificate does not carry.
func TestMariaDBTLSUserWithTheHooksURLParameters(t *testing.T) {
	db := StartMariaDB(t)
	password := RandomSecret()
	db.CreateDatabase(t, "glance_tls")
	db.CreateUser(t, "glance_tls", password, "glance_tls")
	db.RequireX509(t, "glance_tls")

	dir := t.TempDir()
	client, err := db.CA.IssueClient("glance")
	require.NoError(t, err)
	certFile, keyFile, err := client.Write(dir)
	require.NoError(t, err)
	caFile, otherCAFile := filepath.Join(dir, "ca.crt"), filepath.Join(dir, "other-ca.crt")
	require.NoError(t, os.WriteFile(caFile, db.CA.CertPEM, 0o600))
	other, err := testcert.NewCA("not-the-servers")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(otherCAFile, other.CertPEM, 0o600))

	plain := db.URL("glance_tls", password, "glance_tls")
	out, err := db.Login(plain)
	require.Error(t, err, "the user is refused without TLS")
	assert.Contains(t, out, "Access denied")

	clientParams := "&ssl_cert=" + certFile + "&ssl_key=" + keyFile
	for name, tc := range map[string]struct {
		url, wantErr string
	}{
		"require":                 {plain + clientParams, ""},
		"verify-ca":               {plain + "&ssl_ca=" + caFile + clientParams + "&ssl_check_hostname=false", ""},
		"verify-full":             {plain + "&ssl_ca=" + caFile + clientParams + "&ssl_check_hostname=true", ""},
		"verify-full, other CA":   {plain + "&ssl_ca=" + otherCAFile + clientParams + "&ssl_check_hostname=true", "CERTIFICATE_VERIFY_FAILED"},
		"verify-ca, other CA":     {plain + "&ssl_ca=" + otherCAFile + clientParams + "&ssl_check_hostname=false", "CERTIFICATE_VERIFY_FAILED"},
		"verify-full, wrong host": {urlForHost(db, password, "localhost") + "&ssl_ca=" + caFile + clientParams + "&ssl_check_hostname=true", "CERTIFICATE_VERIFY_FAILED"},
		"verify-ca, wrong host":   {urlForHost(db, password, "localhost") + "&ssl_ca=" + caFile + clientParams + "&ssl_check_hostname=false", ""},
	} {
		t.Run(name, func(t *testing.T) {
			out, err := db.Login(tc.url)
			if tc.wantErr == "" {
				require.NoError(t, err, out)
				assert.Equal(t, "glance_tls@%", out)
				return
			}
			require.Error(t, err)
			assert.Contains(t, out, tc.wantErr)
		})
	}
}

// urlForHost is the user's URL with another host name for the same server.
func urlForHost(db *MariaDB, password, host string) string {
	d := *db
	d.Host = host
	return d.URL("glance_tls", password, "glance_tls")
}
