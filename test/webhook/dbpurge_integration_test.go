//go:build integration

package webhook_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/test/refrules"
)

var cronJobs = schema.GroupVersionResource{Group: "batch", Version: "v1", Resource: "cronjobs"}

// TestDBPurgeNameLimit: the webhook's limit on a Glance's name with
// spec.dbPurge is the API server's on the CronJob's name. The longest name
// admitted gives a CronJob the API server creates; one more character is
// refused by the webhook, naming the limit, and its CronJob would be
// refused by the API server.
func TestDBPurgeNameLimit(t *testing.T) {
	s := setup(t)
	const ns = "dbpurge"
	s.env.Namespace(t, ns)
	longest := strings.Repeat("g", names.MaxGlanceNameForDBPurge)

	glanceNamed := func(name string) *unstructured.Unstructured {
		o := object(t, inNamespace(refrules.ExampleGlance, ns))
		o.SetName(name)
		refrules.Rule{Set: map[string]any{"dbPurge.retentionDays": 7}}.Apply(o.Object)
		js, err := json.Marshal(o.Object)
		require.NoError(t, err)
		o = &unstructured.Unstructured{}
		require.NoError(t, o.UnmarshalJSON(js))
		return o
	}
	create := func(gvr schema.GroupVersionResource, o *unstructured.Unstructured) error {
		ctx, cancel := contextTimeout()
		defer cancel()
		_, err := s.env.Dynamic.Resource(gvr).Namespace(ns).Create(ctx, o, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		return err
	}
	require.NoError(t, create(glances, glanceNamed(longest)), "a Glance of %d characters with dbPurge is admitted", len(longest))
	err := create(glances, glanceNamed(longest+"g"))
	require.Error(t, err, "one character more is refused")
	// The CRD refuses it before the webhook is asked, in the same words.
	assert.Contains(t, err.Error(), `name must be at most 43 characters: the db-purge CronJob appends "-db-purge" and Kubernetes caps CronJob names at 52 characters`)
	// The purge runs without spec.dbPurge too, so the name is held to it
	// always, in the reference's words.
	plain := object(t, inNamespace(refrules.ExampleGlance, ns))
	plain.SetName(longest + "g")
	err = create(glances, plain)
	require.Error(t, err, "a Glance without spec.dbPurge is held to the CronJob's name too")
	assert.Contains(t, err.Error(), "name must be at most 43 characters: the db-purge CronJob appends")

	// The CronJob the hooks render (the every-feature-block fixture's), under
	// both names, as the API server takes it.
	cronJob := renderedCronJob(t)
	cronJob.SetNamespace(ns)
	cronJob.SetName(names.DBPurgeCronJobName(longest))
	require.NoError(t, create(cronJobs, cronJob), "the rendered CronJob of the longest name is valid")
	cronJob.SetName(longest + "g" + names.DBPurgeSuffix)
	err = create(cronJobs, cronJob)
	require.Error(t, err, "the API server refuses <name>-db-purge of a longer name")
	assert.Contains(t, err.Error(), "must be no more than 52 characters")
	// A longer Glance admitted before every Glance purged gets a cut name
	// with a hash, which the API server takes.
	cronJob.SetName(names.DBPurgeCronJobName(longest + "g"))
	require.NoError(t, create(cronJobs, cronJob), "the hashed CronJob name %s of a longer Glance", cronJob.GetName())
}

// renderedCronJob is the purge CronJob of the every-feature-block fixture.
func renderedCronJob(t *testing.T) *unstructured.Unstructured {
	t.Helper()
	raw, err := os.ReadFile("../fixtures/sync-glance/every-feature-block/response.json")
	require.NoError(t, err)
	var resp struct {
		Body struct {
			Children []map[string]any `json:"children"`
		} `json:"body"`
	}
	require.NoError(t, json.Unmarshal(raw, &resp))
	for _, c := range resp.Body.Children {
		if c["kind"] == "CronJob" {
			return &unstructured.Unstructured{Object: c}
		}
	}
	t.Fatal("the fixture renders no CronJob")
	return nil
}
