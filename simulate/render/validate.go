package render

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/c5c3/glance-hooks/hooks/admission"
	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/simulate/chain"
)

// Validator is the validate hook's decision on one object about to be
// applied: nil admits it, an error refuses it and its text is the admission
// message. old is the stored object it replaces (nil when it is created);
// stored are the objects of the object's namespace at that moment that the
// webhook reads (webhookReads: the GlanceBackends it lists, the Glance or
// ControlPlane it gets).
type Validator func(obj, old chain.Object, stored []chain.Object) error

// renderUID is the uid of every admission request render makes.
const renderUID = "render"

// Admission asks the validate hook itself (hooks/admission) the question
// the API server would: a CREATE, or an UPDATE with the stored object as
// oldObject, with stored as what the hook's lister reads. So render and
// the webhook share one set of rules and messages.
func Admission(obj, old chain.Object, stored []chain.Object) error {
	r := chain.RefOf(obj)
	group, version, found := strings.Cut(r.APIVersion, "/")
	if !found {
		group, version = "", r.APIVersion
	}
	raw, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	req := &admissionv1.AdmissionRequest{
		UID:       renderUID,
		Kind:      metav1.GroupVersionKind{Group: group, Version: version, Kind: r.Kind},
		Name:      r.Name,
		Namespace: r.Namespace,
		Operation: admissionv1.Create,
		Object:    runtime.RawExtension{Raw: raw},
	}
	if old != nil {
		oldRaw, err := json.Marshal(old)
		if err != nil {
			return err
		}
		req.Operation = admissionv1.Update
		req.OldObject = runtime.RawExtension{Raw: oldRaw}
	}
	resp := admission.Review(context.Background(), req, lister(stored))
	if resp.Allowed {
		return nil
	}
	if resp.Result == nil || resp.Result.Message == "" {
		return errors.New("refused without a message")
	}
	return errors.New(resp.Result.Message)
}

// webhookReads are the kinds the validate hook reads from the API server,
// the only ones lister is given.
var webhookReads = []string{api.KindGlanceBackend, api.KindGlance, api.KindControlPlane}

// lister serves the objects render holds to the admission rules.
type lister []chain.Object

func (l lister) ListGlanceBackends(_ context.Context, namespace string) ([]api.GlanceBackend, error) {
	var out []api.GlanceBackend
	for _, o := range l {
		if r := chain.RefOf(o); r.Namespace != namespace || r.Kind != api.KindGlanceBackend || r.APIVersion != api.GlanceAPIVersion {
			continue
		}
		var b api.GlanceBackend
		if err := convert(o, &b); err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

func (l lister) GlanceControlPlane(_ context.Context, namespace, glance string) (string, error) {
	var g *api.Glance
	var cp *api.ControlPlane
	want := admission.CandidateControlPlane(glance)
	for _, o := range l {
		r := chain.RefOf(o)
		switch {
		case r.Namespace != namespace:
		case r.Kind == api.KindGlance && r.APIVersion == api.GlanceAPIVersion && r.Name == glance:
			g = &api.Glance{}
			if err := convert(o, g); err != nil {
				return "", err
			}
		case r.Kind == api.KindControlPlane && r.APIVersion == api.ControlPlaneAPIVersion && r.Name == want && want != "":
			cp = &api.ControlPlane{}
			if err := convert(o, cp); err != nil {
				return "", err
			}
		}
	}
	if g != nil {
		cp = nil
	}
	return admission.ControlPlaneOfGlance(g, cp), nil
}

// convert reads a stored object as its API type.
func convert(o chain.Object, into any) error {
	raw, err := json.Marshal(o)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, into)
}
