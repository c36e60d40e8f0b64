package kubetest

import (
	"context"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// WebhookRule matches CREATE and UPDATE of the given resources (plurals) of
// one API group and version.
func WebhookRule(group, version string, resources ...string) admissionregistrationv1.RuleWithOperations {
	return admissionregistrationv1.RuleWithOperations{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
		Rule: admissionregistrationv1.Rule{
			APIGroups:   []string{group},
			APIVersions: []string{version},
			Resources:   resources,
		},
	}
}

// ValidatingWebhook is a ValidatingWebhookConfiguration with one webhook
// that the API server calls at url (https, e.g. https://127.0.0.1:PORT/validate)
// trusting caBundle (ServingCert.CAPEM), for the given rules. It fails closed
// (failurePolicy Fail), has no side effects and speaks AdmissionReview v1;
// change the returned object before registering it to differ.
func ValidatingWebhook(name, url string, caBundle []byte, rules ...admissionregistrationv1.RuleWithOperations) *admissionregistrationv1.ValidatingWebhookConfiguration {
	fail := admissionregistrationv1.Fail
	none := admissionregistrationv1.SideEffectClassNone
	timeout := int32(10)
	return &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:                    name,
			ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: caBundle},
			Rules:                   rules,
			FailurePolicy:           &fail,
			SideEffects:             &none,
			AdmissionReviewVersions: []string{"v1"},
			TimeoutSeconds:          &timeout,
		}},
	}
}

// RegisterValidatingWebhook creates cfg and deletes it at t's cleanup. The
// API server starts calling a new webhook within about a second, not at
// once: poll a request the webhook must refuse (see Eventually) before
// relying on it.
func (e *Env) RegisterValidatingWebhook(t testing.TB, cfg *admissionregistrationv1.ValidatingWebhookConfiguration) {
	t.Helper()
	client := e.Kube.AdmissionregistrationV1().ValidatingWebhookConfigurations()
	if _, err := client.Create(context.Background(), cfg, metav1.CreateOptions{}); err != nil {
		t.Fatalf("registering webhook %s: %v", cfg.Name, err)
	}
	t.Cleanup(func() {
		err := client.Delete(context.Background(), cfg.Name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("removing webhook %s: %v", cfg.Name, err)
		}
	})
}
