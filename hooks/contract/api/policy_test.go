package api

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPolicyRules: the policy part's rules, at paths relative to the
// Glance settings, in the words both gates give.
func TestPolicyRules(t *testing.T) {
	cases := map[string]struct {
		reason string
		policy *PolicySpec
		want   string
	}{
		"Unset":    {"the defaults alone", nil, ""},
		"Rules":    {"a rule over the defaults", &PolicySpec{Rules: map[string]string{"get_images": "role:reader"}}, ""},
		"Empty":    {"a block that says nothing", &PolicySpec{}, "policyOverrides: at least one of rules or configMapRef must be set"},
		"NoName":   {"a ConfigMap reference names one", &PolicySpec{ConfigMapRef: &LocalObjectReference{}}, "policyOverrides.configMapRef.name is required"},
		"NoValue":  {"an empty rule is a slip: @ or ! say it", &PolicySpec{Rules: map[string]string{"get_images": ""}}, `policyOverrides: policy rule value must not be empty: rule "get_images" (write "@" to allow everyone or "!" to allow no one)`},
		"NewValue": {"policy.yaml would not read a rule back", &PolicySpec{Rules: map[string]string{"get_images": "role:a\nb"}}, "policyOverrides.rules[get_images] contains a newline"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, policyRules(GlanceSpec{PolicyOverrides: tc.policy}).String()); diff != "" {
				t.Errorf("%s: -want +got:\n%s", tc.reason, diff)
			}
		})
	}
}
