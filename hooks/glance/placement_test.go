package glance

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/glance/render"
)

func TestStagingVolumes(t *testing.T) {
	size := resource.MustParse("50Gi")
	cases := map[string]struct {
		reason  string
		staging api.StagingSpec
		want    corev1.VolumeSource
	}{
		"EmptyDir": {
			reason:  "the staging area is an emptyDir bounded by the spec's size",
			staging: api.StagingSpec{SizeLimit: &size},
			want:    corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: &size}},
		},
		"VolumeClaim": {
			reason:  "a claim per pod, made and deleted with it, of the spec's size and class",
			staging: api.StagingSpec{SizeLimit: &size, VolumeClaim: &api.StagingVolumeClaim{StorageClassName: "fast"}},
			want: corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{VolumeClaimTemplate: &corev1.PersistentVolumeClaimTemplate{
				Spec: corev1.PersistentVolumeClaimSpec{
					AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					StorageClassName: ptr("fast"),
					Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: size}},
				}}}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			vols := render.APIStateVolumes(api.GlanceSpec{Staging: &tc.staging})
			got := map[string]corev1.VolumeSource{}
			for _, v := range vols {
				got[v.Name] = v.VolumeSource
			}
			if diff := cmp.Diff(tc.want, got[render.VolumeStaging]); diff != "" {
				t.Errorf("%s\nstaging: -want, +got:\n%s", tc.reason, diff)
			}
			if l := got[render.VolumeTasks].EmptyDir; l == nil || l.SizeLimit.Cmp(size) != 0 {
				t.Errorf("the tasks area gets the staging size: %v", got[render.VolumeTasks])
			}
			for _, n := range []string{render.VolumeLock, render.VolumeTmp} {
				if l := got[n].EmptyDir; l == nil || l.SizeLimit == nil {
					t.Errorf("%s is a bounded emptyDir: %v", n, got[n])
				}
			}
		})
	}
}

func TestPlacement(t *testing.T) {
	g := &api.Glance{}
	g.Name = "glance"
	node := &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"a"}}}}}}}
	anti := &corev1.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{Weight: 1}}}
	s := api.DeploymentSpec{
		NodeSelector: map[string]string{"role": "control"}, PriorityClassName: "high",
		Tolerations: []corev1.Toleration{{Key: "role", Operator: corev1.TolerationOpExists}},
		Affinity:    &corev1.Affinity{NodeAffinity: node, PodAntiAffinity: anti},
		TopologySpreadConstraints: []corev1.TopologySpreadConstraint{
			{MaxSkew: 2, TopologyKey: "zone", WhenUnsatisfiable: corev1.DoNotSchedule},
		},
	}
	spec := api.GlanceSpec{Deployment: &s}

	job := jobPlacement(spec)
	want := api.DeploymentSpec{NodeSelector: s.NodeSelector, Tolerations: s.Tolerations, PriorityClassName: "high",
		Affinity: &corev1.Affinity{NodeAffinity: node}}
	if diff := cmp.Diff(want, job); diff != "" {
		t.Errorf("a schema Job runs where glance-api may, without the pod (anti-)affinities of glance-api: -want, +got:\n%s", diff)
	}

	spread := spreadConstraints(g, s)
	if len(spread) != 1 || spread[0].LabelSelector == nil || spread[0].LabelSelector.MatchLabels["app.kubernetes.io/instance"] != "glance" {
		t.Errorf("a constraint without labelSelector selects the Glance's pods: %+v", spread)
	}
	if s.TopologySpreadConstraints[0].LabelSelector != nil {
		t.Error("the spec is not changed in place")
	}
	def := spreadConstraints(g, api.DeploymentSpec{})
	if len(def) != 2 || def[0].TopologyKey != "kubernetes.io/hostname" || def[1].TopologyKey != "topology.kubernetes.io/zone" ||
		def[0].WhenUnsatisfiable != corev1.ScheduleAnyway || def[1].WhenUnsatisfiable != corev1.ScheduleAnyway {
		t.Errorf("by default spread over nodes, then zones, as a preference: %+v", def)
	}
}
