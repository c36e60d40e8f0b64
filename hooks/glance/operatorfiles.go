package glance

import (
	"github.com/c5c3/glance-hooks/hooks/glance/model"
)

// renderFiles is the config ConfigMap's data: glance-api.conf, and the
// files beside it.
func renderFiles(in confInput, policy map[string]string, policyErr error) (map[string]string, error) {
	conf, err := renderConfig(in)
	if err != nil {
		return nil, err
	}
	data := configData(conf, in.spec, in.mode, in.rel)
	return data, operatorFiles(data, in, policy, policyErr)
}

// operatorFiles puts into the config ConfigMap's data what an operator
// shapes beyond glance-api.conf: the paste pipeline with the features'
// filters, and the policy file of spec.policyOverrides. Admission refuses
// what cannot be written; what still cannot is a spec error, and the
// last-good config is kept.
func operatorFiles(data map[string]string, in confInput, policy map[string]string, policyErr error) error {
	spec := in.spec
	paste, err := renderPaste(spec, in.files.paste)
	if err != nil {
		return model.InvalidSpec("spec.middleware: %w", err)
	}
	data[PasteFile] = paste
	if policyErr != nil {
		return model.InvalidSpec("%w", policyErr)
	}
	if spec.PolicyOverrides != nil {
		data[PolicyFile] = renderPolicy(policy)
	}
	return nil
}
