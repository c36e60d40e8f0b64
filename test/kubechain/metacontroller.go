package kubechain

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"

	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/simulate/chain"
)

// Metacontroller syncs the parents of the registrations it read, round
// after round.
type Metacontroller struct {
	// dyn is Metacontroller's client; controllers the played controllers'
	// (an admin's: they write Job and Deployment status).
	dyn, controllers dynamic.Interface
	kube             kubernetes.Interface
	mapper           *restmapper.DeferredDiscoveryRESTMapper
	// addrs maps the host:port a hook URL names to the address that
	// serves it (no Service network runs here).
	addrs map[string]string
	regs  []*Registration
	// customized caches customize answers per parent uid and generation,
	// as Metacontroller does.
	customized map[customizeKey]*metacontroller.CustomizeResponse
	// Sent, when set, sees each request body as it is posted, by URL.
	Sent func(url string, body []byte)
	// Namespace, when set, limits the parents synced to that namespace (a
	// real Metacontroller syncs every namespace; tests sharing an API
	// server leave parents of their own elsewhere).
	Namespace string
}

type customizeKey struct {
	uid        string
	generation int64
}

// New reads the CompositeControllers on the API server of cfg (as the
// identity cfg holds) and their webhooks' CA and token Secrets; addrs maps
// each host:port the hook URLs name to where it listens.
func New(ctx context.Context, cfg *rest.Config, addrs map[string]string) (*Metacontroller, error) {
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	m := &Metacontroller{dyn: dyn, controllers: dyn, kube: kube, addrs: addrs, customized: map[customizeKey]*metacontroller.CustomizeResponse{},
		mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(kube.Discovery()))}
	if m.regs, err = m.registrations(ctx); err != nil {
		return nil, err
	}
	if len(m.regs) == 0 {
		return nil, fmt.Errorf("no CompositeController is registered")
	}
	return m, nil
}

// ActAs makes the syncs' reads and writes with the identity of cfg
// (Metacontroller's ServiceAccount: the role an install gives it is then
// what is tested); the registrations and their Secrets stay as read, and
// the played controllers keep New's identity.
func (m *Metacontroller) ActAs(cfg *rest.Config) error {
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	m.dyn = dyn
	return nil
}

// Registrations are the controllers read, in the order a round syncs them.
func (m *Metacontroller) Registrations() []*Registration { return m.regs }

// Sync syncs every parent of every registration once, in order, and
// returns the writes it made.
func (m *Metacontroller) Sync(ctx context.Context) ([]Write, error) {
	var writes []Write
	for _, reg := range m.regs {
		parents, err := m.list(ctx, reg.resources[reg.Parent], m.Namespace, "")
		if err != nil {
			return writes, err
		}
		for _, p := range parents {
			cl := apiCluster{ctx: ctx, dyn: m.dyn, resources: reg.resources, writes: &writes}
			if err := m.syncParent(ctx, cl, reg, p.Object); err != nil {
				return writes, fmt.Errorf("%s %s/%s: %w", reg.Name, p.GetNamespace(), p.GetName(), err)
			}
		}
	}
	return writes, nil
}

// syncParent is one customize and sync of a parent, its answer applied.
func (m *Metacontroller) syncParent(ctx context.Context, cl apiCluster, reg *Registration, parent chain.Object) error {
	r := chain.RefOf(parent)
	u := unstructured.Unstructured{Object: parent}
	if u.GetDeletionTimestamp() != nil {
		return nil // deletion is not played here
	}
	if reg.Finalizes {
		if err := cl.addFinalizer(r, reg.Finalizer()); err != nil {
			return err
		}
		fresh, _, err := cl.Observed(r)
		if err != nil {
			return err
		}
		parent = fresh
	}
	req, err := m.request(ctx, reg, parent)
	if err != nil {
		return err
	}
	var resp metacontroller.SyncResponse
	if err := m.call(ctx, reg.sync, req, &resp); err != nil {
		return err
	}
	return chain.ApplySync(cl, reg.Controller, parent, req.Children, &resp)
}

// request is the sync request of a parent: the registration, the parent,
// every object of a declared child type it controls, and the related
// objects its customize answer selects, by "<Kind>.<apiVersion>" and name.
func (m *Metacontroller) request(ctx context.Context, reg *Registration, parent chain.Object) (*metacontroller.SyncRequest, error) {
	raw, err := json.Marshal(parent)
	if err != nil {
		return nil, err
	}
	req := &metacontroller.SyncRequest{Controller: reg.raw, Parent: raw, Children: metacontroller.ObjectMap{}, Related: metacontroller.ObjectMap{}}
	u := unstructured.Unstructured{Object: parent}
	for _, t := range reg.Children {
		items, err := m.list(ctx, reg.resources[t], u.GetNamespace(), "controller-uid="+string(u.GetUID()))
		if err != nil {
			return nil, err
		}
		key := metacontroller.Key(t.Kind, t.APIVersion)
		req.Children[key] = map[string]json.RawMessage{}
		for _, item := range items {
			if ref := metav1.GetControllerOfNoCopy(&item); ref != nil && ref.UID == u.GetUID() {
				if req.Children[key][item.GetName()], err = json.Marshal(item.Object); err != nil {
					return nil, err
				}
			}
		}
	}
	if reg.customize != nil {
		if err := m.related(ctx, reg, parent, req); err != nil {
			return nil, err
		}
	}
	return req, nil
}

// related resolves the customize answer (cached per uid and generation)
// into the request's related objects.
func (m *Metacontroller) related(ctx context.Context, reg *Registration, parent chain.Object, req *metacontroller.SyncRequest) error {
	u := unstructured.Unstructured{Object: parent}
	key := customizeKey{uid: string(u.GetUID()), generation: u.GetGeneration()}
	resp, ok := m.customized[key]
	if !ok {
		resp = &metacontroller.CustomizeResponse{}
		if err := m.call(ctx, reg.customize, metacontroller.CustomizeRequest{Controller: reg.raw, Parent: req.Parent}, resp); err != nil {
			return err
		}
		m.customized[key] = resp
	}
	for _, rr := range resp.RelatedResources {
		if err := m.addRelated(ctx, req.Related, rr, u.GetNamespace()); err != nil {
			return fmt.Errorf("related %s: %w", rr.Resource, err)
		}
	}
	return nil
}

// addRelated lists what one related resource selects: in its namespace
// (the parent's when it names none; none for a cluster-scoped resource),
// by label selector, then by name when it names some.
func (m *Metacontroller) addRelated(ctx context.Context, into metacontroller.ObjectMap, rr metacontroller.RelatedResource, parentNS string) error {
	gv, err := schema.ParseGroupVersion(rr.APIVersion)
	if err != nil {
		return err
	}
	gvr := gv.WithResource(rr.Resource)
	gvk, err := m.mapper.KindFor(gvr)
	if err != nil {
		return err
	}
	mapping, err := m.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return err
	}
	ns := rr.Namespace
	switch {
	case mapping.Scope.Name() != meta.RESTScopeNameNamespace:
		ns = ""
	case ns == "":
		ns = parentNS
	}
	selector := ""
	if rr.LabelSelector != nil {
		sel, err := metav1.LabelSelectorAsSelector(rr.LabelSelector)
		if err != nil {
			return err
		}
		selector = sel.String()
	}
	items, err := m.list(ctx, gvr, ns, selector)
	if err != nil {
		return err
	}
	key := metacontroller.Key(gvk.Kind, rr.APIVersion)
	if into[key] == nil {
		into[key] = map[string]json.RawMessage{}
	}
	for _, item := range items {
		if len(rr.Names) > 0 && !slices.Contains(rr.Names, item.GetName()) {
			continue
		}
		if into[key][item.GetName()], err = json.Marshal(item.Object); err != nil {
			return err
		}
	}
	return nil
}

// list lists a resource in a namespace ("" for all or cluster-scoped) by a
// label selector ("" for all).
func (m *Metacontroller) list(ctx context.Context, gvr schema.GroupVersionResource, ns, selector string) ([]unstructured.Unstructured, error) {
	var ri dynamic.ResourceInterface = m.dyn.Resource(gvr)
	if ns != "" {
		ri = m.dyn.Resource(gvr).Namespace(ns)
	}
	l, err := ri.List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", gvr.Resource, err)
	}
	return l.Items, nil
}
