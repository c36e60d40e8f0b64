package kubechain

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/c5c3/glance-hooks/simulate/chain"
)

var compositeControllers = schema.GroupVersionResource{Group: "metacontroller.k8s.io", Version: "v1alpha1", Resource: "compositecontrollers"}

// Registration is one CompositeController as Metacontroller reads it: the
// chain.Controller of its parent and child types (Customize and Sync left
// nil: its hooks are the webhooks), the resources of those types, and the
// registration itself, which every request carries as "controller".
type Registration struct {
	chain.Controller
	resources                 map[chain.Type]schema.GroupVersionResource
	customize, sync, finalize *webhook
	raw                       json.RawMessage
}

// registrations reads every CompositeController, ordered so that a
// controller whose parent is another's child comes after it: a change then
// flows down within one round, as chain.Controllers are ordered.
func (m *Metacontroller) registrations(ctx context.Context) ([]*Registration, error) {
	list, err := m.dyn.Resource(compositeControllers).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	var regs []*Registration
	for _, item := range list.Items {
		raw, err := json.Marshal(item.Object)
		if err != nil {
			return nil, err
		}
		reg, err := m.registration(ctx, raw)
		if err != nil {
			return nil, fmt.Errorf("CompositeController %s: %w", item.GetName(), err)
		}
		regs = append(regs, reg)
	}
	return downstreamOrder(regs), nil
}

// registration reads one CompositeController.
func (m *Metacontroller) registration(ctx context.Context, raw json.RawMessage) (*Registration, error) {
	var cc CompositeController
	if err := json.Unmarshal(raw, &cc); err != nil {
		return nil, err
	}
	reg := &Registration{raw: raw, resources: map[chain.Type]schema.GroupVersionResource{}}
	reg.Name = cc.Metadata.Name
	var err error
	if reg.Parent, err = m.typeOf(reg, cc.Spec.ParentResource); err != nil {
		return nil, err
	}
	for _, rule := range cc.Spec.ChildResources {
		t, err := m.typeOf(reg, rule)
		if err != nil {
			return nil, err
		}
		reg.Children = append(reg.Children, t)
		if rule.UpdateMethod() == "OnDelete" {
			reg.OnDelete = append(reg.OnDelete, t)
		}
	}
	h := cc.Spec.Hooks
	if h[HookSync].Webhook == nil {
		return nil, fmt.Errorf("no sync webhook")
	}
	for _, x := range []struct {
		hook string
		into **webhook
	}{{HookCustomize, &reg.customize}, {HookSync, &reg.sync}, {HookFinalize, &reg.finalize}} {
		spec := h[x.hook].Webhook
		if spec == nil {
			continue
		}
		if *x.into, err = m.webhook(ctx, *spec); err != nil {
			return nil, err
		}
	}
	reg.Finalizes = reg.finalize != nil
	return reg, nil
}

// typeOf is the apiVersion and kind a resource rule names, found through
// the API server's discovery.
func (m *Metacontroller) typeOf(reg *Registration, rule ResourceRule) (chain.Type, error) {
	gv, err := schema.ParseGroupVersion(rule.APIVersion)
	if err != nil {
		return chain.Type{}, err
	}
	gvr := gv.WithResource(rule.Resource)
	gvk, err := m.mapper.KindFor(gvr)
	if err != nil {
		return chain.Type{}, fmt.Errorf("%s: %w", rule.Resource, err)
	}
	t := chain.Type{APIVersion: rule.APIVersion, Kind: gvk.Kind}
	reg.resources[t] = gvr
	return t, nil
}

// downstreamOrder sorts the registrations by how many controllers are
// above them (a controller is above another when its children include the
// other's parent type), then by name, as Metacontroller lists them.
func downstreamOrder(regs []*Registration) []*Registration {
	depth := map[*Registration]int{}
	var depthOf func(r *Registration, seen int) int
	depthOf = func(r *Registration, seen int) int {
		d := 0
		for _, up := range regs {
			if up != r && seen < len(regs) && slices.Contains(up.Children, r.Parent) {
				d = max(d, 1+depthOf(up, seen+1))
			}
		}
		return d
	}
	for _, r := range regs {
		depth[r] = depthOf(r, 0)
	}
	slices.SortStableFunc(regs, func(a, b *Registration) int {
		return cmp.Or(cmp.Compare(depth[a], depth[b]), strings.Compare(a.Name, b.Name))
	})
	return regs
}

// hookTimeout is Metacontroller's default when a webhook names none.
const hookTimeout = 10 * time.Second
