package glance

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/ini.v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/storeconf"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
	"github.com/c5c3/glance-hooks/hooks/glance/render"
	"github.com/c5c3/glance-hooks/hooks/glance/report"
	"github.com/c5c3/glance-hooks/hooks/glance/storestate"
)

// TestLayerConf: plugins under what the hooks render, extraConfig over
// both, key by key; an S3 store's section is not reachable.
func TestLayerConf(t *testing.T) {
	rendered := func() []storeconf.Section {
		return []storeconf.Section{
			{Name: "DEFAULT", Options: []storeconf.Option{{Key: "enabled_backends", Value: "a:s3"}, {Key: "workers", Value: "2"}}},
			{Name: "keystone_authtoken", Options: []storeconf.Option{{Key: "auth_url", Value: "http://k"}}},
		}
	}
	spec := api.GlanceSpec{
		Plugins: []api.PluginSpec{
			{Name: "p", ConfigSection: "DEFAULT", Config: map[string]string{"workers": "9", "plugin_opt": "1"}},
			{Name: "q", ConfigSection: "my_driver", Config: map[string]string{"x": "y"}},
		},
		ExtraConfig: map[string]map[string]string{
			"DEFAULT":            {"workers": "4", "allow_anonymous_access": "true"},
			"keystone_authtoken": {"auth_url": "http://other"},
			"my_driver":          {"x": "z"},
			"a":                  {"s3_store_bucket": "b"},
		},
	}
	in := render.ConfInput{Spec: spec, Stores: []*model.Store{{ID: "a", State: storestate.Rendered}}}
	got := render.LayerConf(in, rendered())
	want := []storeconf.Section{
		{Name: "DEFAULT", Options: []storeconf.Option{{Key: "enabled_backends", Value: "a:s3"}, {Key: "workers", Value: "4"},
			{Key: "plugin_opt", Value: "1"}, {Key: "allow_anonymous_access", Value: "true"}}},
		{Name: "keystone_authtoken", Options: []storeconf.Option{{Key: "auth_url", Value: "http://other"}}},
		{Name: "my_driver", Options: []storeconf.Option{{Key: "x", Value: "z"}}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("layers (-want +got):\n%s", diff)
	}

	// Without extraConfig, what the hooks render wins over a plugin.
	in.Spec.ExtraConfig = nil
	got = render.LayerConf(in, rendered())
	assert.Equal(t, storeconf.Option{Key: "workers", Value: "2"}, got[0].Options[1], "a plugin does not override the hooks")

	// The file reads back with an independent parser, each key once.
	text, err := storeconf.Write(got...)
	require.NoError(t, err)
	f, err := ini.Load([]byte(text))
	require.NoError(t, err)
	assert.Equal(t, "1", f.Section("DEFAULT").Key("plugin_opt").String())
}

// TestExtraConfigHealthy: owned keys are named, tunable ones are not, and
// without extraConfig the condition is True.
func TestExtraConfigHealthy(t *testing.T) {
	stores := []*model.Store{{ID: "a", State: storestate.Rendered}}
	cases := map[string]struct {
		reason  string
		extra   map[string]map[string]string
		want    string
		status  bool
		message string
	}{
		"none": {reason: "no extraConfig: True, as the reference reports it",
			want: model.ReasonNoOwnedKeysOverridden, status: true, message: "spec.extraConfig overrides no key the hooks render"},
		"tunable": {reason: "a key the hooks render as a default is the operator's to tune",
			extra: map[string]map[string]string{"oslo_policy": {"enforce_scope": "false"}, "DEFAULT": {"workers": "4"}},
			want:  model.ReasonNoOwnedKeysOverridden, status: true},
		"owned": {reason: "owned keys are named, sorted",
			extra: map[string]map[string]string{"DEFAULT": {"enabled_backends": "x:s3"}, "keystone_authtoken": {"username": "u", "auth_url": "http://k"}},
			want:  model.ReasonOwnedKeysOverridden,
			message: "spec.extraConfig overrides 3 keys the hooks render: [DEFAULT] enabled_backends, " +
				"[keystone_authtoken] auth_url, [keystone_authtoken] username"},
		"store section": {reason: "an S3 store's section is out of reach and said to be",
			extra: map[string]map[string]string{"a": {"s3_store_bucket": "b"}},
			want:  model.ReasonStoreSectionIgnored},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := extraConfigHealthy(api.GlanceSpec{ExtraConfig: tc.extra}, stores)
			assert.Equal(t, tc.want, c.Reason, tc.reason)
			assert.Equal(t, tc.status, c.Status, tc.reason)
			if tc.message != "" {
				assert.Equal(t, tc.message, c.Message, tc.reason)
			}
		})
	}
}

// TestExtraConfigEvent: a False condition is one Warning Event; True none.
func TestExtraConfigEvent(t *testing.T) {
	at := metav1.Unix(1767225600, 0)
	st := api.GlanceStatus{Conditions: []metav1.Condition{{Type: model.CondExtraConfigHealthy, Status: metav1.ConditionFalse,
		Reason: model.ReasonOwnedKeysOverridden, Message: "m", LastTransitionTime: at}}}
	got := extraConfigOccurrences(st)
	require.Len(t, got, 1)
	assert.True(t, got[0].Warning)
	assert.Equal(t, report.EventExtraConfigOwnedKey, got[0].Reason)
	st.Conditions[0].Status = metav1.ConditionTrue
	assert.Empty(t, extraConfigOccurrences(st), "a True condition makes no Event")
}
