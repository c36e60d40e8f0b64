package glance

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/glance/render"
)

// TestPolicy: [oslo_policy] from the release and the overrides; the rules
// of a ConfigMap with the inline ones over them; what cannot be read.
func TestPolicy(t *testing.T) {
	part, err := policyConf(render.ConfInput{Spec: api.GlanceSpec{OpenStackRelease: "2025.2"}})
	require.NoError(t, err)
	require.Len(t, part.Sections, 1)
	assert.Equal(t, "enforce_new_defaults", part.Sections[0].Options[0].Key)
	assert.Equal(t, "enforce_scope", part.Sections[0].Options[1].Key)
	part, err = policyConf(render.ConfInput{Spec: api.GlanceSpec{OpenStackRelease: "2023.2"}})
	require.NoError(t, err)
	assert.Empty(t, part.Sections, "before secure RBAC nothing is rendered")

	cm := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"p"},"data":{"policy.yaml":"get_images: role:reader\ndelete_image: role:admin\n"}}`
	related := metacontroller.ObjectMap{names.ConfigMapsKey: {"p": []byte(cm)}}
	spec := api.GlanceSpec{PolicyOverrides: &api.PolicySpec{ConfigMapRef: &api.LocalObjectReference{Name: "p"},
		Rules: map[string]string{"delete_image": "!", "x\"y": "a\nb"}}}
	rules, err := policyRules(spec, related)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"get_images": "role:reader", "delete_image": "!", "x\"y": "a\nb"}, rules)
	var back map[string]string
	require.NoError(t, yaml.Unmarshal([]byte(renderPolicy(rules)), &back))
	assert.Equal(t, rules, back, "the rendered file reads back as the rules, whatever they hold")

	spec.PolicyOverrides.ConfigMapRef.Name = "missing"
	_, err = policyRules(spec, related)
	assert.ErrorContains(t, err, `ConfigMap "missing" does not exist`)
	bad := metacontroller.ObjectMap{names.ConfigMapsKey: {"p": []byte(`{"metadata":{"name":"p"},"data":{"policy.yaml":"- a list"}}`)}}
	spec.PolicyOverrides.ConfigMapRef.Name = "p"
	_, err = policyRules(spec, bad)
	assert.ErrorContains(t, err, "is not a map of rule names to rules")
}
