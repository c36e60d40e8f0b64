package storeconf

import (
	"errors"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
)

// RenderSection renders a store's [<storeID>] section. Callers check
// BackendProblems and the credentials first; RenderSection still refuses
// anything unsafe.
func RenderSection(spec api.GlanceBackendSpec, storeID string, creds Credentials) (string, error) {
	if problems := BackendProblems(spec, storeID); len(problems) > 0 {
		return "", errors.New(problems.String())
	}
	opts := make([]Option, 0, len(storeOptions)+len(spec.ExtraOptions))
	for _, o := range storeOptions {
		if v := o.value(renderInput{s3: spec.S3, storeID: storeID, creds: creds}); v != "" {
			opts = append(opts, Option{o.key, v})
		}
	}
	opts = append(opts, SortedOptions(spec.ExtraOptions)...)
	return Write(Section{Name: storeID, Options: opts})
}
