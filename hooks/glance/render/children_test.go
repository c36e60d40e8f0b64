package render

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
)

// TestConfigChildrenFamilyLabel: the hashed ConfigMap and backends Secret
// carry the reference's family label, so `kubectl get cm -l
// cobaltcore.c5c3.io/config-base=<glance>-config` finds them as it does
// there; a family name too long for a label value leaves only the label
// off, never the objects.
func TestConfigChildrenFamilyLabel(t *testing.T) {
	type want struct{ ConfigMap, Secret string }
	long := strings.Repeat("g", 60)
	cases := map[string]struct {
		reason string
		glance string
		want   want
	}{
		"Glance": {"the family is the name before the hash", "glance",
			want{ConfigMap: "glance-config", Secret: "glance-backends"}},
		"LongestAdmitted": {"43 characters, the longest name admission takes: both families fit a label value",
			strings.Repeat("g", 43), want{ConfigMap: strings.Repeat("g", 43) + "-config", Secret: strings.Repeat("g", 43) + "-backends"}},
		"TooLong": {"a name admitted before the bound: over 63 characters the API server would refuse the label, and the sync with it",
			long, want{}},
		"OnlyTheSecretTooLong": {"56 characters: `-config` still fits, `-backends` does not",
			strings.Repeat("g", 56), want{ConfigMap: strings.Repeat("g", 56) + "-config"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			g := &api.Glance{}
			g.Name, g.Namespace = tc.glance, "openstack"
			out := &Outcome{}
			objs := configChildren(g, out, map[string]string{names.ConfigFile: "[DEFAULT]\n"}, []byte("[s3]\n"))
			var got want
			for _, o := range objs {
				switch o := o.(type) {
				case *corev1.ConfigMap:
					got.ConfigMap = o.Labels[names.LabelConfigBase]
					if !strings.HasPrefix(o.Name, names.ConfigBase(g.Name)+"-") || o.Labels[names.LabelInstance] != g.Name {
						t.Errorf("ConfigMap %q, labels %v: want the family's name and the Glance's labels", o.Name, o.Labels)
					}
				case *corev1.Secret:
					got.Secret = o.Labels[names.LabelConfigBase]
					if o.Name != out.BackendsName || o.Labels[names.LabelBackendsOf] != g.Name {
						t.Errorf("Secret %q, labels %v: want %q, labelled %s=%s", o.Name, o.Labels, out.BackendsName, names.LabelBackendsOf, g.Name)
					}
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nfamily labels: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestCarriedDatabaseInCurrentWords: when nothing is re-rendered,
// DatabaseReady is carried from the observed status; one an earlier release
// wrote is carried in the reference's words it has now.
func TestCarriedDatabaseInCurrentWords(t *testing.T) {
	observed := []metav1.Condition{{Type: model.CondDatabaseReady, Status: metav1.ConditionTrue, Reason: "SchemaSynced", Message: "m"}}
	got := carriedDatabase(observed, nil)
	if got.Reason != model.ReasonDatabaseSynced || !got.Status || got.Message != "m" {
		t.Errorf("carriedDatabase = %+v, want True/%s with the message kept", got, model.ReasonDatabaseSynced)
	}
}
