package glance

import "github.com/c5c3/glance-hooks/hooks/contract/api"

// operatorFiles puts into the config ConfigMap's data what an operator
// shapes beyond glance-api.conf: the paste pipeline with the features'
// filters, and the policy file of spec.policyOverrides. Admission refuses
// what cannot be written; what still cannot is a spec error, and the
// last-good config is kept.
func operatorFiles(data map[string]string, spec api.GlanceSpec, policy map[string]string, policyErr error) error {
	paste, err := renderPaste(spec)
	if err != nil {
		return invalidSpec("spec.middleware: %w", err)
	}
	data[PasteFile] = paste
	if policyErr != nil {
		return invalidSpec("%w", policyErr)
	}
	if spec.PolicyOverrides != nil {
		data[PolicyFile] = renderPolicy(policy)
	}
	return nil
}
