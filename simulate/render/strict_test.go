package render

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Unknown fields are refused wherever they are, with the line they are on;
// what is known is the CRDs' schema, ObjectMeta and the Secret type.
func TestParseRefusesUnknownFields(t *testing.T) {
	cases := map[string]struct {
		reason string
		name   string
		input  string
		want   string // the whole error; "" means accepted
	}{
		"misspelt spec field": {
			reason: "a GlanceBackend field the CRD does not define, with the field it likely meant",
			name:   "b.yaml",
			input:  backend("primary", "glance", "garage-s3-credentials", true) + "    regon: garage\n",
			want: `b.yaml:13: GlanceBackend openstack/primary: unknown field "spec.s3.regon" (did you mean "region"?): ` +
				`the GlanceBackend schema does not define it (kubectl apply refuses it too)`,
		},
		"in a list item": {
			reason: "a ControlPlane backends[] entry is checked against the items schema",
			name:   "cp.yaml",
			input:  replaceAll(controlPlane("default"), "{name: garage-s3-credentials}", "{name: garage-s3-credentials}\n          replicaz: 3"),
			want: `cp.yaml:16: ControlPlane openstack/controlplane: unknown fields "spec.services.glance.backends[0].replicaz", ` +
				`"spec.services.glance.backends[1].replicaz" at line 25: the ControlPlane schema defines none of them (kubectl apply refuses them too)`,
		},
		"in metadata": {
			reason: "metadata is checked against ObjectMeta, as the API server does",
			name:   "g.yaml",
			input:  "apiVersion: glance.openstack.c5c3.io/v1alpha1\nkind: Glance\nmetadata:\n  name: glance\n  labelz: {a: b}\nspec:\n  openStackRelease: \"2025.2\"\n",
			want: `g.yaml:5: Glance default/glance: unknown field "metadata.labelz" (did you mean "labels"?): ` +
				`the Glance schema does not define it (kubectl apply refuses it too)`,
		},
		"in a Secret": {
			reason: "a Secret is checked against the core/v1 Secret type",
			name:   "s.yaml",
			input:  "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\nstringdata:\n  k: v\n",
			want: `s.yaml:5: Secret default/s: unknown field "stringdata" (did you mean "stringData"?): ` +
				`the Secret schema does not define it (kubectl apply refuses it too)`,
		},
		"an old name": {
			reason: "a Glance written before the reference's names learns the new one",
			name:   "g.yaml",
			input:  "apiVersion: glance.openstack.c5c3.io/v1alpha1\nkind: Glance\nmetadata:\n  name: glance\nspec:\n  openStackRelease: \"2025.2\"\n  replicas: 3\n  staging: {size: 1Gi}\n",
			want: `g.yaml:7: Glance default/glance: unknown fields "spec.replicas" (renamed: now spec.deployment.replicas, as the reference Glance API names it; see the CHANGELOG), ` +
				`"spec.staging.size" (renamed: now spec.staging.sizeLimit, as the reference Glance API names it; see the CHANGELOG) at line 8: ` +
				`the Glance schema defines none of them (kubectl apply refuses them too)`,
		},
		"an old block": {
			reason: "a whole old block names where each of its fields went",
			name:   "cp.yaml",
			input:  replaceAll(controlPlane("default"), "    glance:\n", "    glance:\n      api: {processes: 2}\n"),
			want: `cp.yaml:7: ControlPlane openstack/controlplane: unknown field "spec.services.glance.api" (renamed: now ` +
				`spec.services.glance.apiServer.workers, spec.services.glance.apiServer.uwsgi.threads, as the reference Glance API names it; see the CHANGELOG): ` +
				`the ControlPlane schema does not define it (kubectl apply refuses it too)`,
		},
		"inside a Kubernetes type": {
			reason: "deployment.strategy has the schema of a Deployment's strategy: a misspelt field in it is refused as the API server does",
			name:   "g.yaml",
			input: "apiVersion: glance.openstack.c5c3.io/v1alpha1\nkind: Glance\nmetadata:\n  name: glance\nspec:\n  openStackRelease: \"2025.2\"\n" +
				"  deployment:\n    strategy:\n      rollingUpdat: {maxSurge: 1}\n",
			want: `g.yaml:9: Glance default/glance: unknown field "spec.deployment.strategy.rollingUpdat" (did you mean "rollingUpdate"?): ` +
				`the Glance schema does not define it (kubectl apply refuses it too)`,
		},
		"no close match": {
			reason: "no suggestion when nothing known is close",
			name:   "g.yaml",
			input:  "apiVersion: glance.openstack.c5c3.io/v1alpha1\nkind: Glance\nmetadata:\n  name: glance\nspec:\n  openStackRelease: \"2025.2\"\n  somethingElse: 1\n",
			want:   `g.yaml:7: Glance default/glance: unknown field "spec.somethingElse": the Glance schema does not define it (kubectl apply refuses it too)`,
		},
		"json array item": {
			reason: "JSON input is placed on its line too, inside an array",
			name:   "a.json",
			input:  "[\n {\"apiVersion\": \"v1\", \"kind\": \"Secret\", \"metadata\": {\"name\": \"a\"}},\n {\"apiVersion\": \"v1\", \"kind\": \"Secret\",\n  \"metadata\": {\"name\": \"b\"},\n  \"dta\": {}}\n]\n",
			want: `a.json:5: Secret default/b: unknown field "dta" (did you mean "data"?): ` +
				`the Secret schema does not define it (kubectl apply refuses it too)`,
		},
		"list item": {
			reason: "an item of a v1 List is placed on its line",
			name:   "l.yaml",
			input:  "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Secret\n  metadata: {name: a}\n  type: Opaque\n  immutable: true\n  sneaky: x\n",
			want:   `l.yaml:9: Secret default/a: unknown field "sneaky": the Secret schema does not define it (kubectl apply refuses it too)`,
		},
		"fields of other components kept": {
			reason: "a ControlPlane keeps what this service does not own (other services, other spec fields), as the CRD preserves them",
			name:   "cp.yaml",
			input: replaceAll(controlPlane("default"), "spec:\n  services:\n    glance:\n",
				"spec:\n  region: RegionOne\n  korc: {enabled: true}\n  services:\n    keystone: {replicas: 3}\n    glance:\n"),
		},
		"known fields under preserved parts still checked": {
			reason: "unknown fields are kept where the CRD preserves them, but a field it defines there is still held to its schema",
			name:   "cp.yaml",
			input:  replaceAll(controlPlane("default"), "    glance:\n", "    glance:\n      image: {repository: r, tagg: x}\n"),
			want: `cp.yaml:7: ControlPlane openstack/controlplane: unknown field "spec.services.glance.image.tagg" (did you mean "tag"?): ` +
				`the ControlPlane schema does not define it (kubectl apply refuses it too)`,
		},
		"map values are free": {
			reason: "extraOptions is a string map: any key is a field of the map, not of the schema",
			name:   "b.yaml",
			input:  backend("primary", "glance", "garage-s3-credentials", true) + "  extraOptions:\n    s3_store_thread_pools: \"10\"\n",
		},
		"server fields and status": {
			reason: "what kubectl get -o yaml prints is accepted: server-set metadata and status are dropped, annotations and owner references are ObjectMeta's",
			name:   "s.yaml",
			input: "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  uid: x\n  resourceVersion: \"1\"\n  annotations: {a: b}\n" +
				"  ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: c, uid: u, controller: true}]\n  managedFields: [{manager: kubectl}]\ntype: Opaque\nstatus: {anything: 1}\n",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Parse([]byte(tc.input), tc.name, "default")
			if tc.want == "" {
				require.NoError(t, err, tc.reason)
				return
			}
			inputError(t, err, tc.want)
		})
	}
}
