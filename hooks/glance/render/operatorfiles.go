package render

import (
	"github.com/c5c3/glance-hooks/hooks/glance/model"
)

// RenderFiles is the config ConfigMap's data: glance-api.conf, the paste
// pipeline with the features' filters, and the features' files beside
// them. Admission refuses what cannot be written; what still cannot is a
// spec error, and the last-good config is kept.
func RenderFiles(in ConfInput) (map[string]string, error) {
	conf, err := RenderConfig(in)
	if err != nil {
		return nil, err
	}
	data := ConfigData(conf, in.Spec, in.Mode)
	paste, err := RenderPaste(in.Spec, in.Files.Paste)
	if err != nil {
		return nil, model.InvalidSpec("spec.middleware: %w", err)
	}
	data[PasteFile] = paste
	for _, file := range in.Files.Data {
		if err := file(in, data); err != nil {
			return nil, model.InvalidSpec("%w", err)
		}
	}
	return data, nil
}
