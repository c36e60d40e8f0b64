package kubechain

import "fmt"

// CompositeController is Metacontroller's CompositeController
// (metacontroller.k8s.io/v1alpha1) as far as the chart writes it: what this
// package reads to call the hooks, and what the chart's tests check. The
// chart's tests decode the rendered ones strictly, so a field the chart
// starts writing must be added here; read from the API server, the fields
// it adds (uid, status, ...) are ignored.
type CompositeController struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name        string            `json:"name"`
		Labels      map[string]string `json:"labels"`
		Annotations map[string]string `json:"annotations"`
	} `json:"metadata"`
	Spec CompositeControllerSpec `json:"spec"`
}

// CompositeControllerSpec is the registration's spec.
type CompositeControllerSpec struct {
	GenerateSelector    *bool          `json:"generateSelector"`
	ResyncPeriodSeconds *int32         `json:"resyncPeriodSeconds"`
	ParentResource      ResourceRule   `json:"parentResource"`
	ChildResources      []ResourceRule `json:"childResources"`
	// Hooks by name: customize, sync, finalize.
	Hooks map[string]Hook `json:"hooks"`
}

// The hooks a CompositeController names.
const (
	HookCustomize = "customize"
	HookSync      = "sync"
	HookFinalize  = "finalize"
)

// ResourceRule is a parent or child resource of a registration.
type ResourceRule struct {
	APIVersion     string `json:"apiVersion"`
	Resource       string `json:"resource"`
	UpdateStrategy *struct {
		Method string `json:"method"`
	} `json:"updateStrategy"`
}

// UpdateMethod is how Metacontroller updates children of this resource:
// OnDelete (never updated, only recreated) when the rule names none.
func (r ResourceRule) UpdateMethod() string {
	if r.UpdateStrategy == nil || r.UpdateStrategy.Method == "" {
		return "OnDelete"
	}
	return r.UpdateStrategy.Method
}

// Hook is one hook of a registration; only webhooks are written.
type Hook struct {
	Webhook *Webhook `json:"webhook"`
}

// Webhook is where and how Metacontroller calls a hook. Port and protocol
// are pointers: Metacontroller's defaults apply when they are left out.
type Webhook struct {
	URL     *string         `json:"url"`
	Path    *string         `json:"path"`
	Timeout string          `json:"timeout"`
	Service *WebhookService `json:"service"`
	// CABundle is the CA the hook's serving certificate must chain to.
	CABundle *struct {
		SecretRef *SecretKeyRef `json:"secretRef"`
	} `json:"caBundle"`
	// Authorization is sent with every call: "<type> <token>".
	Authorization *struct {
		Type      string        `json:"type"`
		SecretRef *SecretKeyRef `json:"secretRef"`
	} `json:"authorization"`
	// Etag lets Metacontroller send an unchanged request with If-None-Match.
	Etag *struct {
		Enabled             bool   `json:"enabled"`
		CacheTimeoutSeconds *int32 `json:"cacheTimeoutSeconds"`
		CacheCleanupSeconds *int32 `json:"cacheCleanupSeconds"`
	} `json:"etag"`
}

// WebhookService is the Service a webhook is called through.
type WebhookService struct {
	Name      string  `json:"name"`
	Namespace string  `json:"namespace"`
	Port      *int32  `json:"port"`
	Protocol  *string `json:"protocol"`
}

// SecretKeyRef is Metacontroller's reference to a key of a Secret.
type SecretKeyRef struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
	Key       string `json:"key"`
}

// Endpoint is the URL Metacontroller posts to: url as it is, or
// "<protocol>://<name>.<namespace>:<port><path>" of the service, http and
// 80 when left out.
func (w Webhook) Endpoint() (string, error) {
	path := ""
	if w.Path != nil {
		path = *w.Path
	}
	switch {
	case w.URL != nil:
		return *w.URL, nil
	case w.Service != nil:
		s := w.Service
		protocol, port := "http", int32(80)
		if s.Protocol != nil {
			protocol = *s.Protocol
		}
		if s.Port != nil {
			port = *s.Port
		}
		return fmt.Sprintf("%s://%s.%s:%d%s", protocol, s.Name, s.Namespace, port, path), nil
	}
	return "", fmt.Errorf("a webhook needs url, or service and path")
}
