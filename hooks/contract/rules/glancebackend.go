package rules

import (
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/problem"
	"github.com/c5c3/glance-hooks/hooks/contract/storeconf"
)

// GlanceBackend is the rules a GlanceBackend must meet on its own, which
// admission and its sync hook both run: its name and store id, the Glance
// it names, and the spec the renderer accepts (storeconf.SpecProblems).
func GlanceBackend(b *api.GlanceBackend) problem.List {
	var l problem.List
	if b.Name != "" {
		if errs := validation.IsDNS1123Subdomain(b.Name); len(errs) > 0 {
			l = append(l, problem.New("the name is not a valid object name: %s", shortValidation(errs[0])))
		}
	}
	switch id := b.EffectiveStoreID(); {
	case b.Spec.StoreID != "":
		if err := storeconf.ValidateStoreID(id); err != nil {
			l = append(l, problem.At(specPath.Child("storeId"), "%v", err))
		}
	case b.Name == "":
		l = append(l, problem.Invalid(metadataName, "is the store id when spec.storeId is unset, so a generated name cannot be used; set spec.storeId or a fixed name"))
	default:
		if err := storeconf.ValidateBackendName(id); err != nil {
			l = append(l, problem.New("its name is its store id (spec.storeId is unset), and %v", err))
		}
	}

	l = append(l, problem.Wrap(specPath, storeconf.GlanceRefProblems(b.Spec.GlanceRef.Name))...)

	// The address copied from a ControlPlane's entry, under its name there.
	if s3 := b.Spec.S3; s3 != nil && s3.Endpoint != "" {
		l = append(l, problem.Invalid(specPath.Child("s3", "endpoint"), "%s", api.MisnamedS3Endpoint))
	}
	l = append(l, problem.Wrap(specPath, storeconf.SpecProblems(b.Spec, storeconf.HostField))...)

	return l
}
