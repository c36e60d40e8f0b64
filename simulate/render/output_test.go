package render

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/simulate/chain"
)

// reveals reports whether v holds secret anywhere: in the clear, in a
// base64 value, or inside a JSON document held in a string (a last-applied
// record).
func reveals(v any, secret string) bool {
	switch t := v.(type) {
	case map[string]any:
		for _, c := range t {
			if reveals(c, secret) {
				return true
			}
		}
	case []any:
		for _, c := range t {
			if reveals(c, secret) {
				return true
			}
		}
	case string:
		if strings.Contains(t, secret) {
			return true
		}
		if dec, err := base64.StdEncoding.DecodeString(t); err == nil && strings.Contains(string(dec), secret) {
			return true
		}
		var inner any
		if json.Unmarshal([]byte(t), &inner) == nil && inner != t {
			return reveals(inner, secret)
		}
	}
	return false
}

func TestOutputRedactsEverySecretValue(t *testing.T) {
	objs := mustRender(t, credentials, controlPlane("default")).Objects()
	var js bytes.Buffer
	require.NoError(t, WriteJSON(&js, objs, OutputOptions{}))
	for _, opts := range []OutputOptions{{}, {KeepServerFields: true}} {
		js.Reset()
		require.NoError(t, WriteJSON(&js, objs, opts))
		for _, secret := range []string{"plaintext-secret-0001", "GKexample0001"} {
			assert.False(t, reveals(toAny(t, js.Bytes()), secret), "%s reached the output (keep server fields: %t)", secret, opts.KeepServerFields)
			assert.NotContains(t, yamlOf(t, objs, opts), secret)
		}
	}
	// The check finds them when they are there.
	js.Reset()
	require.NoError(t, WriteJSON(&js, objs, OutputOptions{ShowSecrets: true, KeepServerFields: true}))
	assert.True(t, reveals(toAny(t, js.Bytes()), "plaintext-secret-0001"))
	creds := Clean(find(objs, "Secret", "garage-s3-credentials"), OutputOptions{})
	assert.Equal(t, map[string]any{"access-key-id": "<redacted: 13 bytes>", "secret-access-key": "<redacted: 21 bytes>"}, creds["data"])

	// The children's last-applied records hold the Secret data too.
	kept := Clean(find(objs, "Secret", "controlplane-glance-default-store"), OutputOptions{KeepServerFields: true})
	rec := kept["metadata"].(map[string]any)["annotations"].(map[string]any)[metacontroller.LastAppliedAnnotation].(string)
	assert.Contains(t, rec, `"store.conf":"\u003credacted: `)
}

func TestOutputRedactsStringData(t *testing.T) {
	o := chain.Object{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "s"},
		"stringData": map[string]any{"password": "hunter2"}, "data": map[string]any{"x": "aGVsbG8="}}
	c := Clean(o, OutputOptions{})
	assert.Equal(t, map[string]any{"password": "<redacted: 7 bytes>"}, c["stringData"])
	assert.Equal(t, map[string]any{"x": "<redacted: 5 bytes>"}, c["data"])
	assert.Equal(t, "hunter2", o["stringData"].(map[string]any)["password"], "Clean works on a copy")
}

func TestOutputShowSecrets(t *testing.T) {
	objs := mustRender(t, credentials, controlPlane("default")).Objects()
	out := yamlOf(t, objs, OutputOptions{ShowSecrets: true})
	assert.Contains(t, out, base64.StdEncoding.EncodeToString([]byte("plaintext-secret-0001")))
	assert.NotContains(t, out, "<redacted")
}

func TestOutputDropsServerFieldsUnlessKept(t *testing.T) {
	objs := mustRender(t, credentials, controlPlane("default")).Objects()
	out := yamlOf(t, objs, OutputOptions{})
	for _, noise := range []string{"uid:", "resourceVersion:", "generation:", "creationTimestamp:", "controller-uid", "last-applied-configuration"} {
		assert.NotContains(t, out, noise)
	}
	assert.Contains(t, out, "ownerReferences:", "who owns what stays")
	kept := yamlOf(t, objs, OutputOptions{KeepServerFields: true})
	for _, field := range []string{"uid:", "resourceVersion:", "generation:", "creationTimestamp:", "controller-uid", metacontroller.LastAppliedAnnotation} {
		assert.Contains(t, kept, field)
	}
}

func TestOutputYAMLAndJSONStreams(t *testing.T) {
	objs := mustRender(t, credentials, controlPlane("default")).Objects()
	y := yamlOf(t, objs, OutputOptions{})
	assert.Equal(t, len(objs), strings.Count(y, "---\n"))
	assert.True(t, strings.HasPrefix(y, "---\napiVersion: v1\ndata:\n  glance-api-paste.ini: |\n"), "ConfigMaps sort first, config as a block:\n%s", y[:200])
	docs, err := Parse([]byte(y), "out.yaml", "default")
	require.Error(t, err, "redacted Secret data is not base64, so the output is not meant to be applied")
	_ = docs

	var js bytes.Buffer
	require.NoError(t, WriteJSON(&js, objs, OutputOptions{}))
	var list struct {
		APIVersion, Kind string
		Items            []chain.Object
	}
	require.NoError(t, json.Unmarshal(js.Bytes(), &list))
	assert.Equal(t, "v1", list.APIVersion)
	assert.Equal(t, "List", list.Kind)
	require.Len(t, list.Items, len(objs))
	for i := range objs {
		assert.Equal(t, chain.RefOf(objs[i]), chain.RefOf(list.Items[i]), "same order as the YAML stream")
	}
}

func TestWriteConditions(t *testing.T) {
	objs := mustRender(t, credentials, glance, backend("primary", "glance", "garage-s3-credentials", true),
		backend("archive", "glance", "missing-credentials", false)).Objects()
	var b bytes.Buffer
	require.NoError(t, WriteConditions(&b, objs))
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	assert.Regexp(t, `^KIND +NAME +TYPE +STATUS +REASON +MESSAGE$`, lines[0])
	assert.Len(t, lines, 1+14+6+6+1, "header, fourteen conditions for the Glance and six for each backend, the note on simulated rollouts")
	assert.Regexp(t, `^Glance +glance +DatabaseReady +True +DatabaseSynced +\(simulated\) `, lines[3],
		"render made the schema Job's status up, and says so")
	assert.Regexp(t, `^Glance +glance +DeploymentReady +True +DeploymentReady +\(simulated\) 3 of 3 replicas available$`, lines[5],
		"render made the Deployment's status up, and says so")
	assert.Equal(t, SimulatedNote, lines[len(lines)-1])
	assert.Regexp(t, `^Glance +glance +BackendsReady +False +WaitingForBackends +1 backend is not projected as specified: "archive"`, lines[1])
	assert.Regexp(t, `^Glance +glance +GlanceAPIReady +True +APIHealthy +\(simulated\) `, lines[9],
		"its pods' readiness is the simulated Deployment's too")
	assert.Regexp(t, `^Glance +glance +DBPurgeReady +True +DBPurgeScheduled +`, lines[13], "every Glance purges")
	assert.Regexp(t, `^Glance +glance +StoresReachable +True +StoresNotChecked +`, lines[14], "render checks no store")
	assert.Regexp(t, `^GlanceBackend +archive +CredentialsReady +False +WaitingForCredentials +credentials Secret "missing-credentials"`, lines[15])
	assert.Regexp(t, `^GlanceBackend +archive +StoreReachable +True +StoreNotChecked +.*--store-check-timeout`, lines[19],
		"render checks no store, and says what would")

	// Parents in several namespaces are told apart.
	b.Reset()
	other := chain.Object{"apiVersion": "glance.openstack.c5c3.io/v1alpha1", "kind": "Glance",
		"metadata": map[string]any{"name": "g", "namespace": "zz"}}
	require.NoError(t, WriteConditions(&b, append(objs, other)))
	assert.Contains(t, b.String(), "openstack/archive")
	assert.Regexp(t, `\nGlance +zz/g +- +- +- +no conditions\n`, b.String())
}

func toAny(t *testing.T, raw []byte) any {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal(raw, &v))
	return v
}
