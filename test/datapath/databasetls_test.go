package datapath

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/glance"
	"github.com/c5c3/glance-hooks/test/glancestack"
)

// databaseTLS runs a standalone Glance whose database user may log in only
// over TLS with a client certificate the server's CA issued (REQUIRE
// X509), with spec.database.tls verify-full: the schema Job and glance-api
// reach MariaDB with the files the hooks mount and the URL they render, and
// an upload and a download go through. The same user with the URL the
// hooks render without database.tls is refused by the server.
func databaseTLS(t *testing.T, svc *glancestack.Services, unstable bool) {
	const caSecret, clientSecret = "glance-db-ca", "glance-db-client"
	o := glancestack.Options{
		Standalone: true, Database: "glance_dbtls",
		Backends: []glancestack.Backend{{Name: "primary", Bucket: glancestack.Bucket1, IsDefault: true}},
		Customize: func(s *api.GlanceSpec) {
			s.Database.TLS = &api.DatabaseTLSSpec{Mode: api.DBTLSVerifyFull,
				CABundleSecretRef: api.SecretKeyRef{Name: caSecret}, ClientCertSecretRef: api.SecretKeyRef{Name: clientSecret}}
		},
	}
	if unstable {
		o = onUnstable(t, o)
	}
	st := glancestack.New(t, svc, o)
	svc.DB.RequireX509(t, st.DBUser)
	out, err := svc.DB.Login(svc.DB.URL(st.DBUser, st.DBPassword, st.Database))
	require.Error(t, err, "the user is refused in the clear")
	assert.Contains(t, out, "Access denied")

	client, err := svc.DB.CA.IssueClient(st.DBUser)
	require.NoError(t, err)
	st.ApplySecret(t, caSecret, map[string]string{"ca.crt": string(svc.DB.CA.CertPEM)})
	st.ApplySecret(t, clientSecret, map[string]string{"tls.crt": string(client.CertPEM), "tls.key": string(client.KeyPEM)})
	st.Reconcile(t)

	jobs := st.Jobs()
	require.NotEmpty(t, jobs, "a schema Job ran")
	assert.True(t, jobs[0].Succeeded(), "the schema Job reached the database over TLS")
	assert.NotEmpty(t, svc.DB.Tables(t, st.Database), "the schema is there")
	url := st.SecretData(t, names.DBConnectionSecretName(st.Glance))[names.DBConnectionKey]
	assert.Contains(t, url, "&ssl_ca="+glance.DatabaseTLSDir+"/"+glance.DatabaseCAFile, "the URL names the mounted CA bundle")
	assert.Contains(t, url, "&ssl_check_hostname=true", "verify-full checks the host name")

	pods := st.Pods()
	require.NotEmpty(t, pods)
	data := randomBytes(41, 1<<20+3)
	c := st.Client(t, pods[0])
	id := c.UploadActive(t, "over-database-tls", data, "", "primary")
	assert.True(t, bytes.Equal(data, c.Download(t, id)), "the image comes back byte for byte")
	assert.NotContains(t, pods[0].Logs(pods[0].Container), "PRIVATE KEY", "no key material in glance-api's log")

	// A new client certificate rolls glance-api, and the new pod connects
	// with it.
	before := st.Deployment(t).Spec.Template.Annotations[names.AnnotationCredentialsDigest]
	rotated, err := svc.DB.CA.IssueClient(st.DBUser)
	require.NoError(t, err)
	st.ApplySecret(t, clientSecret, map[string]string{"tls.crt": string(rotated.CertPEM), "tls.key": string(rotated.KeyPEM)})
	st.Reconcile(t)
	assert.NotEqual(t, before, st.Deployment(t).Spec.Template.Annotations[names.AnnotationCredentialsDigest], "the pod template's digest changed")
	now := st.Pods()
	require.NotEmpty(t, now)
	assert.NotSame(t, pods[0], now[0], "a new pod runs")
	assert.True(t, bytes.Equal(data, st.Client(t, now[0]).Download(t, id)), "the rolled pod reads the image over the new certificate")
}
