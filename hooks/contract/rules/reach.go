package rules

import (
	"bytes"
	"encoding/json"
	"net"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/problem"
)

// networkPolicyBlockProblems checks spec.networkPolicy, relative to where
// a Glance's settings are. rawEgress is networkPolicy.additionalEgress as
// written (null when absent): a part, which sees only the typed spec,
// could not tell a misspelt field, so this rule stays here.
func networkPolicyBlockProblems(s api.GlanceSpec, rawEgress json.RawMessage) problem.List {
	if s.NetworkPolicy == nil {
		return nil
	}
	return problem.Wrap(field.NewPath("networkPolicy"), networkPolicyProblems(*s.NetworkPolicy, rawEgress))
}

// networkPolicyProblems checks the sources and the extra egress rules: a
// rule the API server would refuse would stop every apply of the Glance's
// children, and a misspelt field in an egress rule would silently widen it.
// The CRD types an egress rule as a NetworkPolicy's, so the API server
// refuses such a field under strict field validation (kubectl's default)
// and otherwise drops it with a warning before this is asked; the check of
// the raw rules stays for a caller that sent the object past no schema.
func networkPolicyProblems(np api.NetworkPolicySpec, rawEgress json.RawMessage) problem.List {
	var l problem.List
	ingress := field.NewPath("ingress")
	if len(np.Ingress) == 0 {
		l = append(l, problem.At(ingress, "at least one ingress source must be specified"))
	}
	for i, src := range np.Ingress {
		at := ingress.Index(i)
		if src.NamespaceSelector == nil {
			l = append(l, problem.Invalid(at.Child("namespaceSelector"),
				"is required: it selects the source's namespaces (kubernetes.io/metadata.name: <namespace> for the Glance's own), and podSelector narrows them to pods there"))
		}
		l = append(l, selectorProblems(at.Child("namespaceSelector"), src.NamespaceSelector)...)
		l = append(l, selectorProblems(at.Child("podSelector"), src.PodSelector)...)
	}
	egress := field.NewPath("additionalEgress")
	if len(rawEgress) > 0 && !bytes.Equal(rawEgress, []byte("null")) {
		dec := json.NewDecoder(bytes.NewReader(rawEgress))
		dec.DisallowUnknownFields()
		var rules []networkingv1.NetworkPolicyEgressRule
		if err := dec.Decode(&rules); err != nil {
			return append(l, problem.Invalid(egress, "must be NetworkPolicy egress rules (to, ports) with no other fields"))
		}
	}
	for i, r := range np.AdditionalEgress {
		l = append(l, egressRuleProblems(egress.Index(i), r)...)
	}
	return l
}

// egressRuleProblems checks one egress rule the way the API server will.
func egressRuleProblems(at *field.Path, r networkingv1.NetworkPolicyEgressRule) problem.List {
	var l problem.List
	for i, p := range r.Ports {
		l = append(l, portProblems(at.Child("ports").Index(i), p)...)
	}
	for i, peer := range r.To {
		l = append(l, peerProblems(at.Child("to").Index(i), peer)...)
	}
	return l
}

// portProblems checks a rule's port: a protocol, a port, a range.
func portProblems(at *field.Path, p networkingv1.NetworkPolicyPort) problem.List {
	var l problem.List
	if p.Protocol != nil && *p.Protocol != "TCP" && *p.Protocol != "UDP" && *p.Protocol != "SCTP" {
		l = append(l, problem.Invalid(at.Child("protocol"), "must be TCP, UDP or SCTP"))
	}
	numeric := p.Port != nil && p.Port.Type == intstr.Int
	if numeric && (p.Port.IntVal < 1 || p.Port.IntVal > 65535) {
		l = append(l, problem.Invalid(at.Child("port"), "must be between 1 and 65535"))
	}
	if p.EndPort != nil && (!numeric || *p.EndPort < p.Port.IntVal || *p.EndPort > 65535) {
		l = append(l, problem.Invalid(at.Child("endPort"), "needs a numeric port and must be between it and 65535"))
	}
	return l
}

// peerProblems checks a rule's destination: an address block or selectors.
func peerProblems(at *field.Path, peer networkingv1.NetworkPolicyPeer) problem.List {
	if peer.IPBlock == nil && peer.NamespaceSelector == nil && peer.PodSelector == nil {
		return problem.List{problem.Invalid(at, "needs ipBlock, namespaceSelector or podSelector")}
	}
	var l problem.List
	if b := peer.IPBlock; b != nil {
		if peer.NamespaceSelector != nil || peer.PodSelector != nil {
			l = append(l, problem.Invalid(at.Child("ipBlock"), "excludes namespaceSelector and podSelector"))
		}
		if _, _, err := net.ParseCIDR(b.CIDR); err != nil {
			l = append(l, problem.Invalid(at.Child("ipBlock", "cidr"), "must be a CIDR"))
		}
		for j, ex := range b.Except {
			if _, _, err := net.ParseCIDR(ex); err != nil {
				l = append(l, problem.Invalid(at.Child("ipBlock", "except").Index(j), "must be a CIDR"))
			}
		}
	}
	l = append(l, selectorProblems(at.Child("namespaceSelector"), peer.NamespaceSelector)...)
	return append(l, selectorProblems(at.Child("podSelector"), peer.PodSelector)...)
}

// selectorProblems checks a label selector: label keys and values, and the
// values each operator takes.
func selectorProblems(at *field.Path, s *metav1.LabelSelector) problem.List {
	if s == nil {
		return nil
	}
	var l problem.List
	for k, v := range s.MatchLabels {
		if len(validation.IsQualifiedName(k)) > 0 || len(validation.IsValidLabelValue(v)) > 0 {
			l = append(l, problem.Invalid(at.Child("matchLabels"), "holds a label key or value Kubernetes does not allow"))
			break
		}
	}
	for i, e := range s.MatchExpressions {
		eat := at.Child("matchExpressions").Index(i)
		if len(validation.IsQualifiedName(e.Key)) > 0 {
			l = append(l, problem.Invalid(eat.Child("key"), "must be a label key"))
		}
		switch e.Operator {
		case metav1.LabelSelectorOpIn, metav1.LabelSelectorOpNotIn:
			if len(e.Values) == 0 {
				l = append(l, problem.Invalid(eat.Child("values"), "must not be empty for In and NotIn"))
			}
		case metav1.LabelSelectorOpExists, metav1.LabelSelectorOpDoesNotExist:
			if len(e.Values) > 0 {
				l = append(l, problem.Invalid(eat.Child("values"), "must be empty for Exists and DoesNotExist"))
			}
		default:
			l = append(l, problem.Invalid(eat.Child("operator"), "must be In, NotIn, Exists or DoesNotExist"))
		}
	}
	return l
}

// rawAt is the JSON under path in an object as written (nil when absent,
// or when the object does not decode: the typed decode reports that). The
// object is a whole parent, status and all (a Glance's lists every
// backend): the members on the way are read where they are
// (metacontroller.MemberAt), and only where that cannot tell does
// encoding/json decode each object on the way, as it always did.
func rawAt(object []byte, path ...string) json.RawMessage {
	if raw, sure := metacontroller.MemberAt(object, path...); sure {
		return raw
	}
	return rawAtDecoded(object, path...)
}

// rawAtDecoded is rawAt decoding each object on the way.
func rawAtDecoded(object []byte, path ...string) json.RawMessage {
	cur := json.RawMessage(object)
	for _, p := range path {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(cur, &m); err != nil {
			return nil
		}
		cur = m[p]
	}
	return cur
}
