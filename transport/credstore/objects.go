package credstore

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// The two resources the Store reads and writes. They go through the
// dynamic client (the one the validate hook already uses) and not
// client-go's typed clientset: that clientset registers every built-in
// API group when the process starts, which kept the idle serving process
// about 10 MiB bigger for two kinds of object.
var (
	secretResource  = schema.GroupVersionResource{Version: "v1", Resource: "secrets"}
	webhookResource = schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingwebhookconfigurations"}
)

// fieldManager names this service's writes in managedFields.
const fieldManager = "glance-hooks"

// getInto reads one object into a typed value; the API error is returned
// as it is, so apierrors can tell NotFound and Conflict apart.
func getInto(ctx context.Context, res dynamic.ResourceInterface, name string, into any) error {
	u, err := res.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	return runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, into)
}

// update writes a typed value read by getInto back; its resourceVersion
// makes a write over another replica's a Conflict.
func update(ctx context.Context, res dynamic.ResourceInterface, obj any) error {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return err
	}
	_, err = res.Update(ctx, &unstructured.Unstructured{Object: m}, metav1.UpdateOptions{FieldManager: fieldManager})
	return err
}
