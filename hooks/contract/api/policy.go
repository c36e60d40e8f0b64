package api

import (
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/c5c3/glance-hooks/hooks/contract/inivalue"
	"github.com/c5c3/glance-hooks/hooks/contract/problem"
)

// The policy feature's part of a Glance spec (spec.policyOverrides): its
// rules. Its type is PolicySpec (glance_blocks.go); its behaviour (the
// policy file, the ConfigMap it reads) is hooks/glance/policy.go. A
// ControlPlane does not set it.

// policyRules are the part's rules. Paths are relative to the Glance
// settings.
func policyRules(s GlanceSpec) problem.List { return policyProblems(s.PolicyOverrides) }

// policyProblems checks spec.policyOverrides: rules or a ConfigMap, and no
// empty rule ("@" allows everyone, "!" no one).
func policyProblems(p *PolicySpec) problem.List {
	if p == nil {
		return nil
	}
	at := field.NewPath("policyOverrides")
	if len(p.Rules) == 0 && p.ConfigMapRef == nil {
		return problem.List{problem.At(at, "at least one of rules or configMapRef must be set")}
	}
	var l problem.List
	if p.ConfigMapRef != nil {
		l = append(l, RequiredValue(at.Child("configMapRef", "name"), p.ConfigMapRef.Name)...)
	}
	for _, name := range slices.Sorted(maps.Keys(p.Rules)) {
		switch {
		case name == "":
			// Rooted where the CRD's rule says it, so both gates name one field.
			l = append(l, problem.At(at, "policy rule name must not be empty"))
		case inivalue.CharacterProblem(name) != "":
			l = append(l, problem.At(problem.Key(at.Child("rules"), name), "the rule name %s: policy.yaml would not read back the rule written", inivalue.CharacterProblem(name)))
		case p.Rules[name] == "":
			l = append(l, problem.At(at, "policy rule value must not be empty: rule %q (write \"@\" to allow everyone or \"!\" to allow no one)", name))
		default:
			if why := inivalue.CharacterProblem(p.Rules[name]); why != "" {
				l = append(l, problem.Invalid(at.Child("rules").Key(name), "%s", why))
			}
		}
	}
	return l
}
