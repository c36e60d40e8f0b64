package kubetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/dynamic"

	"github.com/c5c3/glance-hooks/schemas"
)

var crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// ApplySchemas creates (or updates) every CRD in schemas/ and waits until
// each is established and its resource is listed in discovery, so clients
// and kubectl can use it at once. Start calls it; call it again after
// replacing a CRD in a test.
func (e *Env) ApplySchemas(ctx context.Context) error {
	var crds []*unstructured.Unstructured
	for _, name := range schemas.Names() {
		raw, err := schemas.Read(name)
		if err != nil {
			return err
		}
		objs, err := decodeCRDs(name, raw)
		if err != nil {
			return err
		}
		crds = append(crds, objs...)
	}
	return e.applyCRDs(ctx, crds)
}

// decodeCRDs reads the CRDs of one YAML file of several documents.
func decodeCRDs(name string, raw []byte) ([]*unstructured.Unstructured, error) {
	var crds []*unstructured.Unstructured
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(raw), 4096)
	for {
		var obj map[string]any
		if err := dec.Decode(&obj); err != nil {
			if errors.Is(err, io.EOF) {
				return crds, nil
			}
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if obj != nil {
			crds = append(crds, &unstructured.Unstructured{Object: obj})
		}
	}
}

// applyCRDs creates or updates crds and waits until each is established
// and served.
func (e *Env) applyCRDs(ctx context.Context, crds []*unstructured.Unstructured) error {
	client := e.Dynamic.Resource(crdGVR)
	for _, crd := range crds {
		if err := upsertCRD(ctx, client, crd); err != nil {
			return fmt.Errorf("CRD %s: %w", crd.GetName(), err)
		}
	}
	for _, crd := range crds {
		if err := poll(ctx, func() error { return established(ctx, client, crd.GetName()) }); err != nil {
			return err
		}
		if err := e.waitServed(ctx, crd); err != nil {
			return err
		}
	}
	return nil
}

// upsertCRD creates crd, or updates the one of its name.
func upsertCRD(ctx context.Context, client dynamic.ResourceInterface, crd *unstructured.Unstructured) error {
	_, err := client.Create(ctx, crd, metav1.CreateOptions{FieldManager: "kubetest"})
	if !apierrors.IsAlreadyExists(err) {
		return err
	}
	cur, err := client.Get(ctx, crd.GetName(), metav1.GetOptions{})
	if err != nil {
		return err
	}
	crd.SetResourceVersion(cur.GetResourceVersion())
	_, err = client.Update(ctx, crd, metav1.UpdateOptions{FieldManager: "kubetest"})
	return err
}

// established says whether the CRD of that name has condition Established.
func established(ctx context.Context, client dynamic.ResourceInterface, name string) error {
	cur, err := client.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	conds, _, _ := unstructured.NestedSlice(cur.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == "Established" && m["status"] == "True" {
			return nil
		}
	}
	return fmt.Errorf("CRD %s is not established", name)
}

// waitServed waits until discovery lists the CRD's resource in each of
// its versions.
func (e *Env) waitServed(ctx context.Context, crd *unstructured.Unstructured) error {
	group, _, _ := unstructured.NestedString(crd.Object, "spec", "group")
	plural, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "plural")
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	for _, v := range versions {
		version, _ := v.(map[string]any)["name"].(string)
		if err := poll(ctx, func() error {
			list, err := e.Discovery().ServerResourcesForGroupVersion(group + "/" + version)
			if err != nil {
				return err
			}
			for _, r := range list.APIResources {
				if r.Name == plural {
					return nil
				}
			}
			return fmt.Errorf("%s.%s/%s is not in discovery yet", plural, group, version)
		}); err != nil {
			return err
		}
	}
	return nil
}

// poll retries f every 50ms until it succeeds or ctx ends, returning f's
// last error then.
func poll(ctx context.Context, f func() error) error {
	for {
		err := f()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (%v)", err, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Eventually retries f until it returns nil, failing t with f's last error
// after timeout. Use it for what the API server does asynchronously, e.g.
// picking up a new webhook configuration.
func Eventually(t interface {
	Helper()
	Fatalf(string, ...any)
}, timeout time.Duration, f func() error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := poll(ctx, f); err != nil {
		t.Fatalf("after %s: %v", timeout, err)
	}
}
