package api

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
)

// TestDatabaseSecretKeyDefault: the password's key of the database Secret
// is password unless the spec names another, as in the reference.
func TestDatabaseSecretKeyDefault(t *testing.T) {
	cases := map[string]struct {
		reason   string
		database *DatabaseSpec
		want     SecretKeyRef
	}{
		"NoDatabase": {"the default database's Secret", nil, SecretKeyRef{Name: DefaultDatabaseSecret, Key: DatabasePasswordKey}},
		"NameOnly": {"a Secret named without a key",
			&DatabaseSpec{Host: "db.example.com", Database: "glance", SecretRef: SecretKeyRef{Name: "db"}},
			SecretKeyRef{Name: "db", Key: DatabasePasswordKey}},
		"Key": {"a key the spec names is kept",
			&DatabaseSpec{Host: "db.example.com", Database: "glance", SecretRef: SecretKeyRef{Name: "db", Key: "db-password"}},
			SecretKeyRef{Name: "db", Key: "db-password"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := GlanceSpec{OpenStackRelease: DefaultOpenStackRelease, Database: tc.database}
			got := s.WithDefaults("openstack").Database.SecretRef
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// Both fields that hold a credentials mode are judged by one function.
func TestCheckCredentialsMode(t *testing.T) {
	cases := []struct {
		mode    string
		managed bool
		want    CredentialsModeFault
	}{
		{"", false, CredentialsModeFine},
		{"", true, CredentialsModeFine},
		{CredentialsStatic, false, CredentialsModeFine},
		{CredentialsDynamic, true, CredentialsModeFine},
		{CredentialsDynamic, false, CredentialsModeUnmanaged},
		{"dynamic", true, CredentialsModeUnknown},
		{"Vault", false, CredentialsModeUnknown},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, CheckCredentialsMode(tc.mode, tc.managed), "mode %q, managed %v", tc.mode, tc.managed)
	}
}
