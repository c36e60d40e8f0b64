package kubechain

import (
	"context"
	"encoding/json"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/c5c3/glance-hooks/simulate/chain"
)

// Write is one write to the API server: a verb of chain's (create, update,
// status, delete) and the object's kind and name.
type Write struct {
	Verb string
	Ref  chain.Ref
}

func (w Write) String() string { return w.Verb + " " + w.Ref.String() }

// apiCluster is the real API server as chain's Cluster: what ApplySync
// reads and writes goes through the dynamic client, as Metacontroller's
// own client calls do, and each write is recorded.
type apiCluster struct {
	ctx       context.Context
	dyn       dynamic.Interface
	resources map[chain.Type]schema.GroupVersionResource
	writes    *[]Write
}

func (c apiCluster) resource(r chain.Ref) (dynamic.ResourceInterface, error) {
	gvr, ok := c.resources[chain.Type{APIVersion: r.APIVersion, Kind: r.Kind}]
	if !ok {
		return nil, fmt.Errorf("%s: not a type of the registration", r)
	}
	if r.Namespace == "" {
		return c.dyn.Resource(gvr), nil
	}
	return c.dyn.Resource(gvr).Namespace(r.Namespace), nil
}

func (c apiCluster) Observed(r chain.Ref) (chain.Object, bool, error) {
	_, u, err := c.fresh(r)
	if apierrors.IsNotFound(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return u.Object, true, nil
}

// fresh reads the object under r from the API server, with the client of
// its resource.
func (c apiCluster) fresh(r chain.Ref) (dynamic.ResourceInterface, *unstructured.Unstructured, error) {
	ri, err := c.resource(r)
	if err != nil {
		return nil, nil, err
	}
	u, err := ri.Get(c.ctx, r.Name, metav1.GetOptions{})
	return ri, u, err
}

func (c apiCluster) Create(o chain.Object) error {
	return c.write(o, chain.VerbCreate, func(ri dynamic.ResourceInterface, u *unstructured.Unstructured) error {
		_, err := ri.Create(c.ctx, u, metav1.CreateOptions{})
		return err
	})
}

func (c apiCluster) Update(o chain.Object) error {
	return c.write(o, chain.VerbUpdate, func(ri dynamic.ResourceInterface, u *unstructured.Unstructured) error {
		_, err := ri.Update(c.ctx, u, metav1.UpdateOptions{})
		return err
	})
}

// write makes one create or update of o and records it.
func (c apiCluster) write(o chain.Object, verb string, call func(dynamic.ResourceInterface, *unstructured.Unstructured) error) error {
	r := chain.RefOf(o)
	ri, err := c.resource(r)
	if err != nil {
		return err
	}
	if err := call(ri, &unstructured.Unstructured{Object: o}); err != nil {
		return fmt.Errorf("%s %s: %w", verb, r, err)
	}
	c.record(verb, r)
	return nil
}

// Delete deletes in the background, as Metacontroller does, and only the
// object observed (a uid precondition).
func (c apiCluster) Delete(r chain.Ref) error {
	ri, u, err := c.fresh(r)
	if err != nil {
		return err
	}
	uid := u.GetUID()
	background := metav1.DeletePropagationBackground
	err = ri.Delete(c.ctx, r.Name, metav1.DeleteOptions{PropagationPolicy: &background, Preconditions: &metav1.Preconditions{UID: &uid}})
	if err != nil {
		return err
	}
	c.record(chain.VerbDelete, r)
	return nil
}

// UpdateStatus reads the object fresh (Metacontroller does, to compare
// the status) and writes through the status subresource only a status
// that differs.
func (c apiCluster) UpdateStatus(r chain.Ref, status map[string]any) error {
	ri, err := c.resource(r)
	if err != nil {
		return err
	}
	return updateStatus(c.ctx, ri, r.Name, status, func() { c.record(chain.VerbStatus, r) })
}

// updateStatus writes status on the named object through the status
// subresource unless it already holds it; wrote is called after a write.
func updateStatus(ctx context.Context, ri dynamic.ResourceInterface, name string, status map[string]any, wrote func()) error {
	u, err := ri.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	if !chain.StatusDiffers(u.Object, status) {
		return nil
	}
	u.Object["status"] = status
	if _, err := ri.UpdateStatus(ctx, u, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("status of %s: %w", name, err)
	}
	wrote()
	return nil
}

func (c apiCluster) record(verb string, r chain.Ref) {
	*c.writes = append(*c.writes, Write{Verb: verb, Ref: r})
}

// addFinalizer puts Metacontroller's finalizer on a parent of a controller
// with a finalize hook (an update of the parent, as Metacontroller makes).
func (c apiCluster) addFinalizer(r chain.Ref, name string) error {
	ri, u, err := c.fresh(r)
	if err != nil {
		return err
	}
	for _, f := range u.GetFinalizers() {
		if f == name {
			return nil
		}
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{
		"resourceVersion": u.GetResourceVersion(), "finalizers": append(u.GetFinalizers(), name)}})
	if err != nil {
		return err
	}
	if _, err := ri.Patch(c.ctx, r.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("finalizer on %s: %w", r, err)
	}
	c.record(chain.VerbUpdate, r)
	return nil
}
