package glance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/excerpt"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/contract/release"
	"github.com/c5c3/glance-hooks/hooks/contract/storeconf"
	"github.com/c5c3/glance-hooks/hooks/glance/observe"
	"github.com/c5c3/glance-hooks/hooks/glance/render"
)

// policyFile is the oslo.policy file rendered from spec.policyOverrides,
// in the config ConfigMap beside glance-api.conf. The rules of a referenced
// ConfigMap are copied into it, so a change of them changes the config's
// content hash and rolls the pods, as a change of the inline rules does.
const policyFile = "policy.yaml"

// secureRBACFrom is the first release whose Glance enforces its new policy
// defaults and their scope (Glance's secure RBAC). Both are written out
// rather than left to the oslo.policy in the image, whose defaults changed
// in 2024.2; an operator turns them off through spec.extraConfig's
// [oslo_policy] enforce_new_defaults and enforce_scope.
var secureRBACFrom = release.Release{Year: 2024, Minor: 1}

// policyConf is [oslo_policy]: the secure-RBAC switches and, with
// policyOverrides, the policy file.
func policyConf(in render.ConfInput) (render.ConfPart, error) {
	var opts []storeconf.Option
	if rel, err := release.Parse(in.Spec.OpenStackRelease); err == nil && rel.AtLeast(secureRBACFrom) {
		opts = append(opts, storeconf.Option{Key: "enforce_new_defaults", Value: "true"}, storeconf.Option{Key: "enforce_scope", Value: "true"})
	}
	if in.Spec.PolicyOverrides != nil {
		opts = append(opts, storeconf.Option{Key: "policy_file", Value: render.ConfigDir + "/" + policyFile})
	}
	if len(opts) == 0 {
		return render.ConfPart{}, nil
	}
	return render.ConfPart{Sections: []storeconf.Section{{Name: "oslo_policy", Options: opts}}}, nil
}

// observePolicy reads spec.policyOverrides' rules, or why they cannot be
// read, for the policy file.
func observePolicy(o *observe.Observed, related metacontroller.ObjectMap) {
	o.Policy, o.PolicyErr = policyRules(o.Spec, related)
}

// writePolicyFile writes policyFile into the config ConfigMap with
// spec.policyOverrides; rules that cannot be read are a spec error, and the
// last-good config is kept.
func writePolicyFile(in render.ConfInput, data map[string]string) error {
	o := in.Observed
	if o.PolicyErr != nil {
		return o.PolicyErr
	}
	if in.Spec.PolicyOverrides != nil {
		data[policyFile] = renderPolicy(o.Policy)
	}
	return nil
}

// policyRules are the rules of spec.policyOverrides: those of the
// referenced ConfigMap's policy.yaml, with the inline rules over them. An
// error says why they cannot be read (the ConfigMap is missing, or its
// policy.yaml is not a map of rules); the config is then not re-rendered.
func policyRules(spec api.GlanceSpec, related metacontroller.ObjectMap) (map[string]string, error) {
	p := spec.PolicyOverrides
	if p == nil {
		return nil, nil
	}
	rules := map[string]string{}
	if ref := p.ConfigMapRef; ref != nil {
		cm, found, err := metacontroller.DecodeOne[corev1.ConfigMap](related, names.ConfigMapsKey, ref.Name)
		switch {
		case err != nil:
			return nil, fmt.Errorf("spec.policyOverrides.configMapRef: ConfigMap %s does not decode", excerpt.Name(ref.Name))
		case !found:
			return nil, fmt.Errorf("spec.policyOverrides.configMapRef: ConfigMap %s does not exist", excerpt.Name(ref.Name))
		}
		text, ok := cm.Data[api.PolicyConfigMapKey]
		if !ok {
			return nil, fmt.Errorf("spec.policyOverrides.configMapRef: ConfigMap %s has no key %s", excerpt.Name(ref.Name), api.PolicyConfigMapKey)
		}
		if err := yaml.Unmarshal([]byte(text), &rules); err != nil {
			return nil, fmt.Errorf("spec.policyOverrides.configMapRef: %s of ConfigMap %s is not a map of rule names to rules",
				api.PolicyConfigMapKey, excerpt.Name(ref.Name))
		}
	}
	maps.Copy(rules, p.Rules)
	for name, rule := range rules {
		if name == "" || rule == "" {
			return nil, fmt.Errorf("spec.policyOverrides: rule %s is empty (\"@\" allows everyone)", excerpt.Name(name))
		}
	}
	return rules, nil
}

// renderPolicy writes the rules, sorted, one per line. Each name and rule
// is a JSON string, which YAML reads as the same double-quoted scalar, so
// no rule can open another line or change the document.
func renderPolicy(rules map[string]string) string {
	var b bytes.Buffer
	for _, name := range slices.Sorted(maps.Keys(rules)) {
		b.Write(jsonString(name))
		b.WriteString(": ")
		b.Write(jsonString(rules[name]))
		b.WriteByte('\n')
	}
	return b.String()
}

func jsonString(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// policyRelated is the ConfigMap spec.policyOverrides names, by name, so
// sync reads its rules; nothing when it names none.
func policyRelated(spec api.GlanceSpec, namespace string) []metacontroller.RelatedResource {
	p := spec.PolicyOverrides
	if p == nil || p.ConfigMapRef == nil {
		return nil
	}
	return []metacontroller.RelatedResource{{APIVersion: "v1", Resource: "configmaps", Namespace: namespace, Names: []string{p.ConfigMapRef.Name}}}
}
