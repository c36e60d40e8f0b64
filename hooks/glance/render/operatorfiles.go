package render

import (
	"github.com/c5c3/glance-hooks/hooks/glance/model"
)

// RenderFiles is the config ConfigMap's data: glance-api.conf, and the
// files beside it.
func RenderFiles(in ConfInput, policy map[string]string, policyErr error) (map[string]string, error) {
	conf, err := RenderConfig(in)
	if err != nil {
		return nil, err
	}
	data := ConfigData(conf, in.Spec, in.Mode, in.Rel)
	return data, operatorFiles(data, in, policy, policyErr)
}

// operatorFiles puts into the config ConfigMap's data what an operator
// shapes beyond glance-api.conf: the paste pipeline with the features'
// filters, and the policy file of spec.policyOverrides. Admission refuses
// what cannot be written; what still cannot is a spec error, and the
// last-good config is kept.
func operatorFiles(data map[string]string, in ConfInput, policy map[string]string, policyErr error) error {
	spec := in.Spec
	paste, err := RenderPaste(spec, in.Files.Paste)
	if err != nil {
		return model.InvalidSpec("spec.middleware: %w", err)
	}
	data[PasteFile] = paste
	if policyErr != nil {
		return model.InvalidSpec("%w", policyErr)
	}
	if spec.PolicyOverrides != nil {
		data[PolicyFile] = RenderPolicy(policy)
	}
	return nil
}
