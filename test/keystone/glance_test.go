package keystone

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/controlplane"
	"github.com/c5c3/glance-hooks/hooks/glance"
	"github.com/c5c3/glance-hooks/simulate/chain"
	"github.com/c5c3/glance-hooks/test/glancestack"
	"github.com/c5c3/glance-hooks/test/podrun"
	"github.com/c5c3/glance-hooks/test/services"
)

// debianMetadefs is where Debian's glance-common keeps the metadata
// definitions the image keeps in /var/lib/openstack/etc/glance/metadefs.
const debianMetadefs = "/usr/share/glance-common/metadefs"

// TestGlanceAPIAuthenticatesWithTheRegisteredUser closes the loop: the
// glance-api the hooks render for the ControlPlane, run from its rendered
// Deployment as the kubelet would, validates tokens against Keystone with
// the service user the ControlPlane's registration Job made there (its
// keystonemiddleware authenticates as that user with the password from
// glance-service-user).
func TestGlanceAPIAuthenticatesWithTheRegisteredUser(t *testing.T) {
	db := services.StartMariaDB(t)
	ks := services.StartKeystone(t, db)
	cache := services.StartMemcached(t)
	s3 := services.StartS3(t, services.S3Options{Buckets: []string{"glance-images", "glance-images-2"}})
	dbPassword := services.RandomSecret()
	db.CreateDatabase(t, "glance")
	db.CreateUser(t, "glance", dbPassword, "glance")

	c := newCluster(t, ks)
	c.runSchemaJobs = true
	password := services.RandomSecret()
	c.secret("keystone-admin", adminSecret(ks, ks.Admin.Password))
	c.secret("glance-service-user", map[string]string{"password": password})
	c.secret("glance-db", map[string]string{"username": "glance", "password": dbPassword})
	c.secret("garage-s3-credentials", map[string]string{"access-key-id": s3.AccessKey, "secret-access-key": s3.SecretKey})
	c.apply(fmt.Sprintf(`apiVersion: c5c3.io/v1alpha1
kind: ControlPlane
metadata: {name: controlplane, namespace: openstack}
spec:
  services:
    glance:
      keystoneEndpoint: %s
      database: {host: %s, port: %d, database: glance, secretRef: {name: glance-db}}
      cache: {servers: ["%s"]}
      metadefsPath: %s
      backends:
        - name: default
          type: S3
          isDefault: true
          s3: {endpoint: %s, bucket: glance-images, region: %s, credentialsSecretRef: {name: garage-s3-credentials}}
`, ks.URL, db.Host, db.Port, cache.Addr(), debianMetadefs, s3.Endpoint, s3.Region))
	c.converge()
	require.Equal(t, metav1.ConditionTrue, c.condition(controlplane.CondKeystoneRegistered).Status, c.condition(controlplane.CondKeystoneRegistered).Message)

	deployment, ok := c.w.Get(chain.Ref{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "openstack", Name: "controlplane-glance"})
	require.True(t, ok, "no Deployment rendered")
	pod := podrun.MustPodOf(t, deployment)
	glancestack.MatchSecureRBACSwitch(t, &pod, func(configMap string) string {
		o, _ := c.w.Get(chain.Ref{APIVersion: "v1", Kind: "ConfigMap", Namespace: "openstack", Name: configMap})
		data, _ := o["data"].(map[string]any)
		conf, _ := data[names.ConfigFile].(string)
		return conf
	})
	api := podrun.StartReady(t, pod, podrun.ObjectsOf(t, c.w.Objects()), podrun.Options{})
	get := func(token string) (int, []byte) {
		c := glancestack.Client{URL: api.URL(glance.PortName), Token: token}
		return c.Call(t, http.MethodGet, "/v2/images", nil, nil)
	}
	glanceUser := services.Credentials{User: "glance", Password: password, Project: "service"}
	// The service user's own token is valid (no 401), but under the secure
	// RBAC defaults the hooks render the service role reads no project's
	// images: the policy, not the token check, refuses the list.
	code, body := get(ks.Token(t, glanceUser))
	assert.Equal(t, http.StatusForbidden, code, "the service user's token is taken and the secure RBAC policy refuses it the list: %s\n%s", body, api.Logs(api.Pod.Spec.Containers[0].Name))
	assert.Contains(t, string(body), "get_images", "the policy rule named is get_images")
	code, body = get(ks.AdminToken(t))
	assert.Equal(t, http.StatusOK, code, "glance-api refused the admin's token: %s", body)
	code, _ = get("not-a-token")
	assert.Equal(t, http.StatusUnauthorized, code, "glance-api accepted a made-up token")
	t.Logf("glance-api stopped in %s", api.Stop(t))
}
