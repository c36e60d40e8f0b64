//go:build integration

package kubetest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/test/kubetest"
)

func TestMain(m *testing.M) { os.Exit(kubetest.Main(m)) }

func TestSharedEnvServesTheCRDs(t *testing.T) {
	env := kubetest.Shared(t)
	assert.Same(t, env, kubetest.Shared(t), "one environment per test binary")
	for _, gv := range []string{"c5c3.io/v1alpha1", "glance.openstack.c5c3.io/v1alpha1"} {
		list, err := env.Discovery().ServerResourcesForGroupVersion(gv)
		require.NoError(t, err)
		assert.NotEmpty(t, list.APIResources)
	}
	info, err := env.Discovery().ServerVersion()
	require.NoError(t, err)
	assert.Equal(t, "v1.37.2", info.GitVersion)

	out, errOut, err := env.Kubectl(t, "", "get", "crd", "-o", "name")
	require.NoError(t, err, errOut)
	assert.Contains(t, out, "customresourcedefinition.apiextensions.k8s.io/glancebackends.glance.openstack.c5c3.io")
}

// TestStartStop checks a dedicated environment is gone after its test.
func TestStartStop(t *testing.T) {
	var env *kubetest.Env
	t.Run("run", func(t *testing.T) {
		env = kubetest.Start(t)
		_, err := env.Kube.CoreV1().Namespaces().Get(context.Background(), "default", metav1.GetOptions{})
		require.NoError(t, err)
	})
	if env == nil {
		return // skipped: kube-apiserver is absent
	}
	_, err := os.Stat(env.Dir)
	assert.True(t, os.IsNotExist(err), "Stop removes %s", env.Dir)
	client := &http.Client{Timeout: 2 * time.Second}
	_, err = client.Get(env.URL + "/readyz")
	assert.Error(t, err, "kube-apiserver is stopped")
}

// TestValidatingWebhook registers a webhook served with a NewServingCert
// certificate and checks the API server calls it over TLS and relays its
// refusal message.
func TestValidatingWebhook(t *testing.T) {
	env := kubetest.Shared(t)
	ns := env.Namespace(t, "webhook")
	cert, err := kubetest.NewServingCert(t.TempDir(), "127.0.0.1")
	require.NoError(t, err)
	const refusal = "refused by the kubetest webhook"
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var review admissionv1.AdmissionReview
		if err := json.NewDecoder(r.Body).Decode(&review); err != nil || review.Request == nil {
			http.Error(w, "bad review", http.StatusBadRequest)
			return
		}
		var cm corev1.ConfigMap
		_ = json.Unmarshal(review.Request.Object.Raw, &cm)
		allowed := cm.Labels["deny"] != "true"
		review.Response = &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: allowed}
		if !allowed {
			review.Response.Result = &metav1.Status{Message: refusal, Code: http.StatusForbidden}
		}
		review.Request = nil
		_ = json.NewEncoder(w).Encode(review)
	}))
	srv.TLS, err = cert.ServerTLSConfig()
	require.NoError(t, err)
	srv.StartTLS()
	t.Cleanup(srv.Close)

	cfg := kubetest.ValidatingWebhook("deny.kubetest.local", srv.URL+"/validate", cert.CAPEM, kubetest.WebhookRule("", "v1", "configmaps"))
	cfg.Webhooks[0].NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": ns}}
	env.RegisterValidatingWebhook(t, cfg)

	cms := env.Kube.CoreV1().ConfigMaps(ns)
	dry := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
	denied := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "denied", Labels: map[string]string{"deny": "true"}}}
	kubetest.Eventually(t, 30*time.Second, func() error {
		_, err := cms.Create(context.Background(), denied, dry)
		if err == nil {
			return assert.AnError
		}
		return nil
	})
	_, err = cms.Create(context.Background(), denied, dry)
	require.Error(t, err)
	assert.True(t, apierrors.IsForbidden(err), "%v", err)
	assert.Contains(t, err.Error(), refusal)
	_, err = cms.Create(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "allowed"}}, dry)
	assert.NoError(t, err)
}
