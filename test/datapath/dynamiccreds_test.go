package datapath

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/test/glancestack"
	"github.com/c5c3/glance-hooks/test/podrun"
)

// dynamicCredentials runs a standalone Glance with database.credentialsMode
// Dynamic on a database cluster named by clusterRef (its Service name
// resolved in the pods, as the cluster's DNS would), as a secrets engine
// serves it: the user in the Secret is short-lived, and when the engine
// issues the next one the Secret changes, glance-api rolls onto it, and the
// first user is revoked. The new pod serves the image the first one stored,
// and takes a new one, as the new user alone.
func dynamicCredentials(t *testing.T, svc *glancestack.Services, unstable bool) {
	cluster, first, next := "openstack-db", "v-glance-lease-1", "v-glance-lease-2"
	if unstable {
		// The users are the database server's, which both stacks share.
		first, next = first+"-unstable", next+"-unstable"
	}
	o := glancestack.Options{
		Standalone: true, Database: "glance_dynamic", DBUser: first,
		Backends: []glancestack.Backend{{Name: "primary", Bucket: glancestack.Bucket1, IsDefault: true}},
		Customize: func(s *api.GlanceSpec) {
			s.Database.Host, s.Database.ClusterRef = "", &api.LocalObjectReference{Name: cluster}
			s.Database.CredentialsMode = api.CredentialsDynamic
		},
		Pods: podrun.Options{ClusterDNS: map[string]string{cluster + "." + glancestack.Namespace + ".svc": svc.DB.Host}},
	}
	if unstable {
		o = onUnstable(t, o)
	}
	st := glancestack.New(t, svc, o)
	st.Reconcile(t)
	url := st.SecretData(t, names.DBConnectionSecretName(st.Glance))[names.DBConnectionKey]
	assert.Contains(t, url, first+":", "the URL carries the Secret's user")
	assert.Contains(t, url, "@"+cluster+"."+glancestack.Namespace+".svc:", "the URL names the cluster's Service")
	pods := st.Pods()
	require.Len(t, pods, 1)
	data := randomBytes(51, 1<<20+11)
	id := st.Client(t, pods[0]).UploadActive(t, "first-lease", data, "", "primary")

	// The engine issues the next user; the Secret holds it.
	password := glancestack.Password()
	svc.DB.CreateUser(t, next, password, st.Database)
	before := st.Deployment(t).Spec.Template.Annotations[names.AnnotationCredentialsDigest]
	st.ApplySecret(t, glancestack.DBSecret, map[string]string{api.DatabaseUsernameKey: next, api.DatabasePasswordKey: password})
	st.Reconcile(t)
	assert.NotEqual(t, before, st.Deployment(t).Spec.Template.Annotations[names.AnnotationCredentialsDigest], "the pod template's digest changed")
	now := st.Pods()
	require.Len(t, now, 1)
	assert.NotSame(t, pods[0], now[0], "a new pod runs")

	// The first lease ends: its user is revoked.
	svc.DB.Exec(t, "DROP USER '"+first+"'@'%';")
	c := st.Client(t, now[0])
	assert.True(t, bytes.Equal(data, c.Download(t, id)), "the image of the first lease comes back byte for byte")
	more := randomBytes(52, 1<<20+13)
	id2 := c.UploadActive(t, "next-lease", more, "", "primary")
	assert.True(t, bytes.Equal(more, c.Download(t, id2)), "the next lease's user writes the catalogue")
	assert.NotContains(t, now[0].Logs(now[0].Container), password, "no password in glance-api's log")
}
