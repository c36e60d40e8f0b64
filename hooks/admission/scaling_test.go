package admission

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
)

// TestGlanceScalingRules: the autoscaler's bounds, the staging size, the
// import methods and the scheduling the CRD keeps as written, checked the
// way the sync hook and the API server's Deployment validation will use
// them, the reference's rules of the deployment block and of a
// networkPolicy source; the same rules on a ControlPlane's services.glance.
func TestGlanceScalingRules(t *testing.T) {
	const msgNoNamespaces = "is required: it selects the source's namespaces (kubernetes.io/metadata.name: <namespace> for the Glance's own), and podSelector narrows them to pods there"
	cases := map[string]struct {
		reason string
		spec   string // JSON fields added to a complete Glance spec; <glance> is the Glance's name
		want   string // "" allowed; <glance> is the Glance's name
	}{
		"everything": {
			reason: "every field, as a pod spec writes it",
			spec: `"importMethods":["glance-direct","web-download","copy-image"],"staging":{"sizeLimit":"50Gi","volumeClaim":{"storageClassName":"fast"}},` +
				`"deployment":{"nodeSelector":{"role":"control"},"tolerations":[{"key":"role","operator":"Equal","value":"control","effect":"NoSchedule"}],` +
				`"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"zone","operator":"In","values":["a"]}]}]}}},` +
				`"topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"kubernetes.io/hostname","whenUnsatisfiable":"DoNotSchedule"}],"priorityClassName":"high"},` +
				`"autoscaling":{"minReplicas":2,"maxReplicas":6,"targetCPUUtilization":70}`,
		},
		"misspelt affinity field": {
			reason: "the CRD keeps an affinity as written, so a misspelt field would silently do nothing",
			spec:   `"deployment":{"affinity":{"nodeAfinity":{}}}`,
			want:   `spec.deployment: has a field neither the reference's deployment block nor the pod spec's scheduling has: "nodeAfinity"`,
		},
		"spread constraint the Deployment would refuse": {
			reason: "every update of the Deployment would fail in Metacontroller",
			spec:   `"deployment":{"topologySpreadConstraints":[{"maxSkew":0,"whenUnsatisfiable":"Sometimes"}]}`,
			want: `spec.deployment.topologySpreadConstraints[0].maxSkew must be at least 1; spec.deployment.topologySpreadConstraints[0].topologyKey is required; ` +
				`spec.deployment.topologySpreadConstraints[0].whenUnsatisfiable must be DoNotSchedule or ScheduleAnyway`,
		},
		"no replicas": {
			reason: "the reference's minimum: a Glance runs at least one glance-api pod",
			spec:   `"deployment":{"replicas":0}`,
			want:   `spec.deployment.replicas: replicas must be at least 1`,
		},
		"requests above their limits": {
			reason: "the API server refuses such a pod template, so every apply of the Deployment would fail; in the reference's words",
			spec:   `"deployment":{"resources":{"requests":{"memory":"2Gi","cpu":"2","ephemeral-storage":"1Gi"},"limits":{"memory":"1Gi","cpu":"1500m"}}}`,
			want: `spec.deployment.resources.requests.cpu: cpu request must not exceed limit (1500m); ` +
				`spec.deployment.resources.requests.memory: memory request must not exceed limit (1Gi)`,
		},
		"spread selector of other pods": {
			reason: "a selector other than the Deployment's spreads the wrong pods; in the reference's words",
			spec:   `"deployment":{"topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"ScheduleAnyway","labelSelector":{"matchLabels":{"app.kubernetes.io/name":"glance","app.kubernetes.io/instance":"other"}}}]}`,
			want: `spec.deployment.topologySpreadConstraints[0].labelSelector: labelSelector.matchLabels must equal the Deployment selector labels ` +
				`map[app.kubernetes.io/component:api app.kubernetes.io/instance:<glance> app.kubernetes.io/name:glance]`,
		},
		"spread selector with expressions": {
			reason: "only the Deployment's labels, as matchLabels",
			spec: `"deployment":{"topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"ScheduleAnyway","labelSelector":{` +
				`"matchLabels":{"app.kubernetes.io/name":"glance","app.kubernetes.io/instance":"<glance>","app.kubernetes.io/component":"api"},` +
				`"matchExpressions":[{"key":"tier","operator":"Exists"}]}}]}`,
			want: `spec.deployment.topologySpreadConstraints[0].labelSelector.matchExpressions: matchExpressions are not allowed; labelSelector must use matchLabels only`,
		},
		"spread selector of the glance-api pods": {
			reason: "the Deployment's selector, written out, or left out for the hooks to fill in",
			spec: `"deployment":{"topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"ScheduleAnyway","labelSelector":{` +
				`"matchLabels":{"app.kubernetes.io/name":"glance","app.kubernetes.io/instance":"<glance>","app.kubernetes.io/component":"api"}}},` +
				`{"maxSkew":1,"topologyKey":"kubernetes.io/hostname","whenUnsatisfiable":"ScheduleAnyway"}]}`,
		},
		"spread selector of the reference": {
			reason: "the reference's own selector (name and instance) applies unchanged",
			spec: `"deployment":{"topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"ScheduleAnyway","labelSelector":{` +
				`"matchLabels":{"app.kubernetes.io/name":"glance","app.kubernetes.io/instance":"<glance>"}}}]}`,
		},
		"network source without namespaces": {
			reason: "the reference's CRD requires namespaceSelector; a podSelector alone would select pods of the Glance's namespace only",
			spec:   `"networkPolicy":{"ingress":[{"namespaceSelector":{}},{"podSelector":{"matchLabels":{"role":"client"}}}]}`,
			want:   `spec.networkPolicy.ingress[1].namespaceSelector ` + msgNoNamespaces,
		},
		"autoscaler bounds": {
			reason: "the minimum (default the replicas, 3) may not exceed the maximum",
			spec:   `"autoscaling":{"maxReplicas":1,"targetCPUUtilization":0,"targetMemoryUtilization":101}`,
			want: `spec.autoscaling.maxReplicas: maxReplicas must be >= spec.deployment.replicas (3) when minReplicas is not set, because minReplicas defaults to spec.deployment.replicas; spec.autoscaling.targetCPUUtilization: targetCPUUtilization must be between 1 and 100; ` +
				`spec.autoscaling.targetMemoryUtilization: targetMemoryUtilization must be between 1 and 100`,
		},
		"import methods": {
			reason: "glance-download needs a federated deployment; a method twice is a slip",
			spec:   `"importMethods":["glance-direct","glance-download","glance-direct"]`,
			want:   `spec.importMethods[1] must be one of glance-direct, web-download, copy-image; spec.importMethods[2] is given twice`,
		},
		"staging size": {
			reason: "an emptyDir of a tenth of a byte (100m, a slip for 100Mi) evicts the pod at the first staged byte",
			spec:   `"staging":{"sizeLimit":"100m"}`,
			want:   `spec.staging.sizeLimit must be at least 1Mi`,
		},
		"staging unbounded": {
			reason: "an unbounded area has no limit to set",
			spec:   `"staging":{"unbounded":true,"sizeLimit":"1Gi"}`,
			want:   `spec.staging.unbounded: unbounded and sizeLimit are mutually exclusive: an unbounded staging area has no size limit to configure`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			raw := `{"apiVersion":"glance.openstack.c5c3.io/v1alpha1","kind":"Glance","metadata":{"name":"glance","namespace":"openstack"},` +
				`"spec":{"openStackRelease":"2025.2",` + strings.ReplaceAll(tc.spec, "<glance>", "glance") + `}}`
			req := create(t, &api.Glance{})
			req.Name, req.Namespace = "glance", ns
			req.Object.Raw = []byte(raw)
			resp := Review(context.Background(), req, &fakeLister{})
			if tc.want == "" {
				allowed(t, req, resp)
			} else {
				assert.Equal(t, `Glance "glance": `+strings.ReplaceAll(tc.want, "<glance>", "glance"), denied(t, req, resp, 422), tc.reason)
			}

			// The same settings under a ControlPlane's services.glance.
			cpRaw := `{"apiVersion":"c5c3.io/v1alpha1","kind":"ControlPlane","metadata":{"name":"cp","namespace":"openstack"},` +
				`"spec":{"services":{"glance":{"backends":[{"name":"default","type":"S3","isDefault":true,"s3":{"endpoint":"http://s3:3900",` +
				`"bucket":"b","credentialsSecretRef":{"name":"c"}}}],` + strings.ReplaceAll(tc.spec, "<glance>", "cp-glance") + `}}}}`
			req = create(t, &api.ControlPlane{})
			req.Name, req.Namespace = "cp", ns
			req.Object.Raw = []byte(cpRaw)
			resp = Review(context.Background(), req, &fakeLister{})
			if tc.want == "" {
				allowed(t, req, resp)
			} else {
				// Paths move under services.glance; the reference's words
				// naming the Glance's own field (spec.deployment.replicas)
				// stay as they are.
				want := strings.ReplaceAll(strings.ReplaceAll(tc.want, "<glance>", "cp-glance"), "spec.", "spec.services.glance.")
				want = strings.ReplaceAll(want, ">= spec.services.glance.deployment.replicas", ">= spec.deployment.replicas")
				want = strings.ReplaceAll(want, "defaults to spec.services.glance.deployment.replicas", "defaults to spec.deployment.replicas")
				assert.Equal(t, `ControlPlane "cp": `+want, denied(t, req, resp, 422), tc.reason)
			}
		})
	}
}
