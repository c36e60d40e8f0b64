package glancestack

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	glancehook "github.com/c5c3/glance-hooks/hooks/glance"
	"github.com/c5c3/glance-hooks/simulate/chain"
)

// TestParentsConvergeToTheFirstSchemaJob: what a stack applies, for the
// guide's ControlPlane and for its standalone Glance, the hooks take as the
// guide's objects: every store projected, the db sync Job left for the
// stack to run, no Deployment before it succeeded and one afterwards, in
// the launch mode of the release, pointing at the spec's addresses.
func TestParentsConvergeToTheFirstSchemaJob(t *testing.T) {
	for name, standalone := range map[string]bool{"ControlPlane": false, "standalone": true} {
		t.Run(name, func(t *testing.T) {
			sp := spec{release: "2026.1", replicas: 1, dbHost: "127.0.0.1", dbPort: 3307, database: "glance",
				cache: "127.0.0.1:11212", keystoneEndpoint: "http://127.0.0.1:5001/v3", serviceUser: "glance",
				s3Endpoint: "http://127.0.0.1:9000", backends: GuideBackends(standalone)}
			w := chain.NewWorld(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
			w.Rollouts, w.JobResult = false, chain.JobsRunUntilFinished
			objs, err := sp.objects(standalone)
			require.NoError(t, err)
			objs = append(objs,
				secretObject(S3CredentialsSecret, map[string]string{"access-key-id": "a", "secret-access-key": "s$"}),
				secretObject(DBSecret, map[string]string{api.DatabaseUsernameKey: "glance", api.DatabasePasswordKey: "p$"}),
				secretObject(ServiceUserSecret, map[string]string{api.DefaultServiceUserPassKey: "u$"}))
			for _, o := range objs {
				require.NoError(t, w.Apply(o))
			}
			converge := func() {
				res, err := w.Run(chain.Controllers(), 50)
				require.NoError(t, err)
				require.True(t, res.Converged)
			}
			glance := chain.Ref{APIVersion: api.GlanceAPIVersion, Kind: api.KindGlance, Namespace: Namespace, Name: glanceName(standalone)}
			deployment := chain.Ref{APIVersion: "apps/v1", Kind: "Deployment", Namespace: Namespace, Name: glance.Name}

			converge()
			assert.Equal(t, "True/AllBackendsProjected", condition(t, w, glance, "BackendsReady"))
			assert.Equal(t, "False/DBSyncInProgress", condition(t, w, glance, "DatabaseReady"))
			jobs := w.UnfinishedJobs()
			require.Len(t, jobs, 1, "the db sync Job")
			_, found := w.Get(deployment)
			assert.False(t, found, "no Deployment before the schema")

			require.NoError(t, w.FinishJob(jobs[0], true))
			converge()
			obj, found := w.Get(deployment)
			require.True(t, found, "the Deployment once the db sync Job succeeded")
			var d appsv1.Deployment
			raw, _ := json.Marshal(obj)
			require.NoError(t, json.Unmarshal(raw, &d))
			c := d.Spec.Template.Spec.Containers[0]
			assert.Equal(t, []string{"uwsgi"}, c.Command, "2026.1 runs uWSGI")
			cm, _ := glancehook.PodMounts(d.Spec.Template.Spec.Volumes)
			cmObj, _ := w.Get(chain.Ref{APIVersion: "v1", Kind: "ConfigMap", Namespace: Namespace, Name: cm})
			conf := cmObj["data"].(map[string]any)["glance-api.conf"].(string)
			for _, addr := range []string{"auth_url = http://127.0.0.1:5001/v3", "memcached_servers = 127.0.0.1:11212", "default_backend = " + sp.backends[0].Name} {
				assert.Contains(t, conf, addr)
			}
		})
	}
}

func condition(t *testing.T, w *chain.World, r chain.Ref, typ string) string {
	t.Helper()
	o, ok := w.Get(r)
	require.True(t, ok, "%s", r)
	return conditionOf(o, typ)
}
