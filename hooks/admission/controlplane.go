package admission

import (
	"fmt"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/c5c3/glance-hooks/hooks/api"
	"github.com/c5c3/glance-hooks/hooks/controlplane"
	"github.com/c5c3/glance-hooks/hooks/storeconf"
)

const backendsPath = "spec.services.glance."

func reviewControlPlane(req *admissionv1.AdmissionRequest) decision {
	var cp api.ControlPlane
	if err := decodeObject(req.Object.Raw, &cp); err != nil {
		return undecodable(api.KindControlPlane, "object", err)
	}
	if cp.DeletionTimestamp != nil || cp.Spec.Services.Glance == nil {
		return decision{}
	}
	name := nameOf(req, &cp.ObjectMeta)
	cp.Name, cp.Namespace = name, namespaceOf(req, &cp.ObjectMeta)
	var out []string
	add := func(p string) { out = append(out, p) }

	if name == "" {
		add("metadata.name is required: it names the projected Glance, so it cannot be generated")
	} else if errs := validation.IsDNS1035Label(controlplane.GlanceName(name)); len(errs) > 0 {
		add(fmt.Sprintf("the projected Glance %q is not a valid Service name: %s", controlplane.GlanceName(name), shortValidation(errs[0])))
	}

	// The Glance child must pass the Glance rules, or Metacontroller could not create it.
	spec := controlplane.GlanceSpec(&cp)
	for _, p := range glanceSpecProblems(&spec) {
		add("the projected Glance's " + p)
	}

	// The rules the sync hook also applies, with the guide's messages.
	backends := cp.Spec.Services.Glance.Backends
	for _, p := range controlplane.ValidateBackends(backends) {
		if strings.HasPrefix(p, "backends[") {
			p = backendsPath + p
		}
		add(p)
	}
	// What only admission checks: the projected names and rendered values.
	for i, e := range backends {
		at := fmt.Sprintf("%sbackends[%d]", backendsPath, i)
		// A name that is no store id is reported by ValidateBackends already.
		if e.Name != "" && name != "" && storeconf.ValidateStoreID(e.Name) == nil {
			child := controlplane.BackendName(name, e.Name)
			if errs := validation.IsDNS1123Subdomain(child); len(errs) > 0 {
				add(fmt.Sprintf("%s: the entry name makes the GlanceBackend name %q, which is not a valid object name: %s", at, child, shortValidation(errs[0])))
			}
		}
		if e.S3 != nil {
			for _, p := range checkS3Values(at+".s3", s3Fields{hostField: "endpoint", host: e.S3.Endpoint, bucket: e.S3.Bucket,
				region: e.S3.Region, format: e.S3.BucketURLFormat, largeSize: e.S3.LargeObjectSize, largeChunk: e.S3.LargeObjectChunkSize}) {
				add(p)
			}
		}
		for _, p := range checkExtraOptions(at+".extraOptions", e.ExtraOptions) {
			add(p)
		}
	}
	if len(out) > 0 {
		return invalid(api.KindControlPlane, name, out)
	}
	return decision{}
}
