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
// them; the same rules on a ControlPlane's services.glance.
func TestGlanceScalingRules(t *testing.T) {
	cases := map[string]struct {
		reason string
		spec   string // JSON fields added to a complete Glance spec
		want   string // "" allowed
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
		"autoscaler bounds": {
			reason: "the minimum (default 2) may not exceed the maximum",
			spec:   `"autoscaling":{"maxReplicas":1,"targetCPUUtilization":0,"targetMemoryUtilization":101}`,
			want: `spec.autoscaling.maxReplicas must be at least minReplicas (default 2); spec.autoscaling.targetCPUUtilization: targetCPUUtilization must be between 1 and 100; ` +
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
				`"spec":{"openStackRelease":"2025.2",` + tc.spec + `}}`
			req := create(t, &api.Glance{})
			req.Name, req.Namespace = "glance", ns
			req.Object.Raw = []byte(raw)
			resp := Review(context.Background(), req, &fakeLister{})
			if tc.want == "" {
				allowed(t, req, resp)
			} else {
				assert.Equal(t, `Glance "glance": `+tc.want, denied(t, req, resp, 422), tc.reason)
			}

			// The same settings under a ControlPlane's services.glance.
			cpRaw := `{"apiVersion":"c5c3.io/v1alpha1","kind":"ControlPlane","metadata":{"name":"cp","namespace":"openstack"},` +
				`"spec":{"services":{"glance":{"backends":[{"name":"default","type":"S3","isDefault":true,"s3":{"endpoint":"http://s3:3900",` +
				`"bucket":"b","credentialsSecretRef":{"name":"c"}}}],` + tc.spec + `}}}}`
			req = create(t, &api.ControlPlane{})
			req.Name, req.Namespace = "cp", ns
			req.Object.Raw = []byte(cpRaw)
			resp = Review(context.Background(), req, &fakeLister{})
			if tc.want == "" {
				allowed(t, req, resp)
			} else {
				assert.Equal(t, `ControlPlane "cp": `+strings.ReplaceAll(tc.want, "spec.", "spec.services.glance."), denied(t, req, resp, 422), tc.reason)
			}
		})
	}
}
