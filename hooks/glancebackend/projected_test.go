package glancebackend

import (
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
)

// related builds what customize asks for: the Glance's Deployment
// (mounting the named backends Secret, if any) and backends Secrets by name
// holding backends.conf.
func related(t *testing.T, mounted string, secrets map[string]string) metacontroller.ObjectMap {
	t.Helper()
	m := metacontroller.ObjectMap{names.DeploymentsKey: {}, names.SecretsKey: {}}
	if mounted != "-" {
		d := appsv1.Deployment{}
		d.Name = "glance"
		if mounted != "" {
			d.Spec.Template.Spec.Volumes = []corev1.Volume{{Name: names.VolumeBackends,
				VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: mounted}}}}
		}
		raw, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		m[names.DeploymentsKey]["glance"] = raw
	}
	for name, conf := range secrets {
		raw, err := json.Marshal(map[string]any{"metadata": map[string]string{"name": name},
			"data": map[string]string{names.BackendsFile: base64.StdEncoding.EncodeToString([]byte(conf))}})
		if err != nil {
			t.Fatal(err)
		}
		m[names.SecretsKey][name] = raw
	}
	return m
}

func TestCheckProjected(t *testing.T) {
	type args struct {
		glanceFound bool
		mounted     string // "-": no Deployment
		secrets     map[string]string
	}
	notProjected := func(msg string) hook.Condition {
		return hook.Condition{Type: CondConfigProjected, Reason: ReasonWaitingForProjection, Message: msg}
	}
	cases := map[string]struct {
		reason string
		args   args
		want   hook.Condition
	}{
		"Projected": {
			reason: "the mounted backends Secret holds the store's header on a line of its own",
			args:   args{glanceFound: true, mounted: "glance-backends-1", secrets: map[string]string{"glance-backends-1": "[other]\nk = v\n\n[archive]\nk = v\n"}},
			want: hook.Condition{Type: CondConfigProjected, Status: true, Reason: ReasonConfigProjected,
				Message: `Deployment "glance" mounts a backends Secret that holds [archive]`},
		},
		"NoGlance": {
			reason: "a backend whose Glance does not exist waits for it",
			args:   args{mounted: "-"},
			want: hook.Condition{Type: CondConfigProjected, Reason: ReasonWaitingForProjection,
				Message: `Glance "glance" does not exist yet`},
		},
		"NoDeployment": {
			reason: "a Glance that has not rendered its Deployment yet",
			args:   args{glanceFound: true, mounted: "-"},
			want:   notProjected(`Glance "glance" has no Deployment yet`),
		},
		"NothingMounted": {
			reason: "a Deployment without the backends volume mounts no store",
			args:   args{glanceFound: true},
			want:   notProjected(`Deployment "glance" mounts no backends Secret`),
		},
		"SecretNotObserved": {
			reason: "the mounted Secret may not have reached this hook yet",
			args:   args{glanceFound: true, mounted: "glance-backends-2"},
			want:   notProjected(`backends Secret "glance-backends-2" mounted by Deployment "glance" is not observed yet`),
		},
		"SectionMissing": {
			reason: "a running config without the store, or naming it only inside a value, does not hold it",
			args:   args{glanceFound: true, mounted: "glance-backends-1", secrets: map[string]string{"glance-backends-1": "[other]\nk = [archive]\n"}},
			want:   notProjected(`Deployment "glance" mounts a backends Secret that has no [archive] section yet`),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := checkProjected(related(t, tc.args.mounted, tc.args.secrets), "glance", tc.args.glanceFound, "archive")
			if err != nil {
				t.Fatalf("%s\ncheckProjected(...): %v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\ncheckProjected(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
