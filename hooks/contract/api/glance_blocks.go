package api

import (
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The reference Glance's feature blocks, in its shape: the database purge,
// the image cache, the Gateway route, the NetworkPolicy, the operator's own
// config (policy overrides, middleware, plugins), and the External Secrets
// store admission still refuses (LaterFields).

// GatewaySpec exposes glance-api through a Gateway API HTTPRoute.
type GatewaySpec struct {
	Hostname    string            `json:"hostname"`
	ParentRef   GatewayParentRef  `json:"parentRef"`
	Path        string            `json:"path,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// GatewayParentRef names the Gateway (and listener) the route attaches to.
type GatewayParentRef struct {
	Name        string `json:"name"`
	Namespace   string `json:"namespace,omitempty"`
	SectionName string `json:"sectionName,omitempty"`
}

// NetworkPolicySpec is the NetworkPolicy around the glance-api pods.
type NetworkPolicySpec struct {
	Ingress          []NetworkPolicySource                  `json:"ingress"`
	AdditionalEgress []networkingv1.NetworkPolicyEgressRule `json:"additionalEgress,omitempty"`
}

// NetworkPolicySource is one source allowed to reach glance-api. The CRD
// requires NamespaceSelector, as the reference's does; it stays a pointer so
// a source stored before that (or sent past the schema) is told from one
// selecting every namespace, and refused.
type NetworkPolicySource struct {
	NamespaceSelector *metav1.LabelSelector `json:"namespaceSelector"`
	PodSelector       *metav1.LabelSelector `json:"podSelector,omitempty"`
}

// SecretStoreRefSpec names an External Secrets store.
type SecretStoreRefSpec struct {
	Kind string `json:"kind,omitempty"`
	Name string `json:"name"`
}

// PolicySpec is oslo.policy rules over the defaults.
type PolicySpec struct {
	Rules        map[string]string     `json:"rules,omitempty"`
	ConfigMapRef *LocalObjectReference `json:"configMapRef,omitempty"`
}

// MiddlewareSpec is one WSGI filter put into the paste pipeline.
type MiddlewareSpec struct {
	Name          string            `json:"name"`
	FilterFactory string            `json:"filterFactory"`
	Position      string            `json:"position"`
	Config        map[string]string `json:"config,omitempty"`
}

// PluginSpec is one config section for a service plugin or driver.
type PluginSpec struct {
	Name          string            `json:"name"`
	ConfigSection string            `json:"configSection"`
	Config        map[string]string `json:"config,omitempty"`
}
