// Package kube is the validate hook's only way into the API server: it finds
// the credentials (a kubeconfig, or the pod's service account) and lists
// GlanceBackends with a bounded timeout. The admission rules stay pure in
// hooks/admission; this package implements its Lister.
package kube

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/c5c3/glance-hooks/hooks/admission"
	"github.com/c5c3/glance-hooks/hooks/contract/api"
)

// What the Lister reads. The service account needs get and list on
// glancebackends, and get on glances and controlplanes.
var (
	GlanceBackendResource = schema.GroupVersionResource{Group: api.GlanceGroup, Version: "v1alpha1", Resource: "glancebackends"}
	GlanceResource        = schema.GroupVersionResource{Group: api.GlanceGroup, Version: "v1alpha1", Resource: "glances"}
	ControlPlaneResource  = schema.GroupVersionResource{Group: "c5c3.io", Version: "v1alpha1", Resource: "controlplanes"}
)

// DefaultTimeout bounds one list call (all its pages). Keep it below the
// webhook's timeoutSeconds, so a slow API server gives this hook's refusal
// rather than the API server's own timeout error.
const DefaultTimeout = 5 * time.Second

// pageSize bounds one list page.
const pageSize = 250

// ErrNoConfig means no kubeconfig was given and the process is not in a pod.
var ErrNoConfig = errors.New("no Kubernetes API access is configured: give --kubeconfig, set KUBECONFIG, or run in a pod with a service account")

// Source says where a REST config came from.
type Source string

const (
	SourceFlag      Source = "--kubeconfig"
	SourceEnv       Source = "KUBECONFIG"
	SourceInCluster Source = "in-cluster service account"
)

// Explicit reports whether the operator named the config; a broken explicit
// config should stop the service at start.
func (s Source) Explicit() bool { return s == SourceFlag || s == SourceEnv }

// RESTConfig finds API credentials: the kubeconfig path given (the
// --kubeconfig flag), else the KUBECONFIG environment variable (a list of
// files, merged the way kubectl does), else the in-cluster service account.
// It does not contact the API server. Without any of them the error is
// ErrNoConfig.
func RESTConfig(kubeconfig string) (*rest.Config, Source, error) {
	if kubeconfig != "" {
		cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
		if err != nil {
			return nil, SourceFlag, fmt.Errorf("loading --kubeconfig: %w", err)
		}
		return cfg, SourceFlag, nil
	}
	if env := os.Getenv("KUBECONFIG"); env != "" {
		rules := &clientcmd.ClientConfigLoadingRules{Precedence: filepath.SplitList(env)}
		cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
		if err != nil {
			return nil, SourceEnv, fmt.Errorf("loading KUBECONFIG: %w", err)
		}
		return cfg, SourceEnv, nil
	}
	cfg, err := rest.InClusterConfig()
	if errors.Is(err, rest.ErrNotInCluster) {
		return nil, "", ErrNoConfig
	}
	if err != nil {
		return nil, SourceInCluster, fmt.Errorf("loading the in-cluster service account: %w", err)
	}
	return cfg, SourceInCluster, nil
}

// Lister lists GlanceBackends through the dynamic client.
type Lister struct {
	client  dynamic.Interface
	timeout time.Duration
}

// NewLister builds a Lister; timeout bounds every ListGlanceBackends call
// (DefaultTimeout when zero or less).
func NewLister(cfg *rest.Config, timeout time.Duration) (*Lister, error) {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	cfg = rest.CopyConfig(cfg)
	cfg.UserAgent = "glance-hooks"
	// One read per admission call; client-go's default of 5 per second
	// would queue a burst of kubectl applies behind its own rate limiter.
	if cfg.QPS == 0 {
		cfg.QPS, cfg.Burst = 50, 100
	}
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("building the Kubernetes client: %w", err)
	}
	return &Lister{client: client, timeout: timeout}, nil
}

// bounded is ctx cut to the Lister's timeout, and the budget that applies
// (the caller's deadline may be the shorter one), to say which ran out.
func (l *Lister) bounded(ctx context.Context) (context.Context, context.CancelFunc, time.Duration) {
	budget := l.timeout
	if d, ok := ctx.Deadline(); ok && time.Until(d) < budget {
		budget = time.Until(d).Round(time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(ctx, l.timeout)
	return ctx, cancel, budget
}

// ListGlanceBackends returns every GlanceBackend in the namespace, reading
// all pages within the timeout. Any failure is an error: the caller refuses.
func (l *Lister) ListGlanceBackends(ctx context.Context, namespace string) ([]api.GlanceBackend, error) {
	ctx, cancel, budget := l.bounded(ctx)
	defer cancel()
	var out []api.GlanceBackend
	opts := metav1.ListOptions{Limit: pageSize}
	for {
		list, err := l.client.Resource(GlanceBackendResource).Namespace(namespace).List(ctx, opts)
		if err != nil {
			if ctx.Err() == context.DeadlineExceeded {
				return nil, fmt.Errorf("the API server did not answer within %s", budget)
			}
			return nil, err
		}
		for i := range list.Items {
			var b api.GlanceBackend
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(list.Items[i].Object, &b); err != nil {
				// The converter's words are not quoted: they could carry a value.
				return nil, fmt.Errorf("GlanceBackend %q in the list does not match its schema", list.Items[i].GetName())
			}
			out = append(out, b)
		}
		if list.GetContinue() == "" {
			return out, nil
		}
		opts.Continue = list.GetContinue()
	}
}

// GlanceControlPlane reads the Glance and, when it does not exist, the
// ControlPlane its name points at, within the timeout (see
// admission.Lister). Any failure but "not found" is an error.
func (l *Lister) GlanceControlPlane(ctx context.Context, namespace, glance string) (string, error) {
	ctx, cancel, budget := l.bounded(ctx)
	defer cancel()
	var g api.Glance
	found, err := l.get(ctx, budget, l.client.Resource(GlanceResource).Namespace(namespace), glance, &g)
	if err != nil || found {
		return admission.ControlPlaneOfGlance(&g, nil), err
	}
	name := admission.CandidateControlPlane(glance)
	if name == "" {
		return "", nil
	}
	var cp api.ControlPlane
	found, err = l.get(ctx, budget, l.client.Resource(ControlPlaneResource).Namespace(namespace), name, &cp)
	if err != nil || !found {
		return "", err
	}
	return admission.ControlPlaneOfGlance(nil, &cp), nil
}

// get reads one object of the namespace's resource into into; a missing
// object is not an error. budget is the time ctx allows, for the error.
func (l *Lister) get(ctx context.Context, budget time.Duration, res dynamic.ResourceInterface, name string, into any) (bool, error) {
	u, err := res.Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return false, nil
	case err != nil && ctx.Err() == context.DeadlineExceeded:
		return false, fmt.Errorf("the API server did not answer within %s", budget)
	case err != nil:
		return false, err
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, into); err != nil {
		return false, fmt.Errorf("%s %q does not match its schema", u.GetKind(), u.GetName())
	}
	return true, nil
}
