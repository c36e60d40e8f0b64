// Package kubetest starts a real etcd and kube-apiserver on loopback for
// integration tests, applies the CRDs of schemas/, and hands back clients, a
// kubeconfig and helpers for admission webhooks.
//
// The binaries come from hack/build-kube.sh, which builds them once from the
// pinned module in test/kube into a cache directory (`make kube-bins`; a cold
// build takes several minutes) and then only prints that directory. KUBE_BIN_DIR
// points the harness at other binaries. When they are absent and cannot be
// built, tests skip saying so, unless KUBETEST_REQUIRE=1 (set by `make
// integration`), which makes that a failure.
//
// # Writing an integration test
//
// Integration test files carry the build tag `integration`, so `go test ./...`
// stays fast and needs no API server; `make integration` runs them. Starting
// the API server takes a few seconds, so a package shares one:
//
//	//go:build integration
//
//	func TestMain(m *testing.M) { os.Exit(kubetest.Main(m)) }
//
//	func TestSomething(t *testing.T) {
//		env := kubetest.Shared(t)            // started on first use
//		ns := env.Namespace(t, "openstack")  // created if missing
//		_, err := env.Dynamic.Resource(gvr).Namespace(ns).Create(...)
//		stdout, stderr, err := env.Kubectl(t, yaml, "apply", "-f", "-")
//	}
//
// Objects live on for the rest of the package's tests; use distinct names, or
// server-side dry run (metav1.DryRunAll) for checks that should leave nothing.
//
// # Calling a webhook under test
//
// The API server calls admission webhooks only over HTTPS and checks the
// certificate against the configuration's caBundle. To put a handler (or the
// glance-hooks binary) behind it:
//
//	cert, _ := kubetest.NewServingCert(t.TempDir(), "127.0.0.1")
//	// serve with cert.CertFile/cert.KeyFile (glance-hooks --tls-cert-file/--tls-key-file),
//	// or httptest: srv := httptest.NewUnstartedServer(h); srv.TLS, _ = cert.ServerTLSConfig(); srv.StartTLS()
//	env.RegisterValidatingWebhook(t, kubetest.ValidatingWebhook("validate.example", srv.URL+"/validate", cert.CAPEM,
//		kubetest.WebhookRule("glance.openstack.c5c3.io", "v1alpha1", "glancebackends")))
//	kubetest.Eventually(t, 10*time.Second, func() error { /* a request the webhook refuses is refused */ })
//
// The API server reaches 127.0.0.1 directly (no service network is needed
// for url-based webhooks).
package kubetest
