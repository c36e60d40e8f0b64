package chart

import (
	"cmp"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/simulate/chain"
	"github.com/c5c3/glance-hooks/test/kubechain"
	"github.com/c5c3/glance-hooks/transport/server"
)

// expectedController is what the chart must register for one of the
// service's CompositeControllers.
type expectedController struct {
	parent   string   // "<apiVersion> <resource>"
	children []string // sorted "<apiVersion> <resource>"
	// onDelete are the children registered with updateStrategy OnDelete
	// (created and deleted, never updated); every other child is InPlace.
	onDelete []string
	hooks    map[string]string // hook -> path
	// optional are the children registered only where the cluster serves
	// them (metacontroller.gatewayAPI).
	optional []string
}

// registered are the children the chart registers, with or without the
// optional ones.
func (e expectedController) registered(withOptional bool) []string {
	if withOptional {
		return e.children
	}
	var out []string
	for _, c := range e.children {
		if !slices.Contains(e.optional, c) {
			out = append(out, c)
		}
	}
	return out
}

// resourceOf maps the kinds the controllers use to their REST resources.
var resourceOf = map[string]string{
	"ControlPlane": "controlplanes", "Glance": "glances", "GlanceBackend": "glancebackends",
	"Secret": "secrets", "ConfigMap": "configmaps", "Deployment": "deployments", "Service": "services", "Job": "jobs",
	"PodDisruptionBudget": "poddisruptionbudgets", "HorizontalPodAutoscaler": "horizontalpodautoscalers",
	"ServiceAccount": "serviceaccounts", "Event": "events", "CronJob": "cronjobs",
	"HTTPRoute": "httproutes", "NetworkPolicy": "networkpolicies",
}

// expectedControllers derives what the chart must register from the code:
// the service's controller table (simulate/chain, which the scenario tests run)
// and its route table (transport/server). A hook's path is the route serving the
// very function the controller uses, so the chart can only call the hook the
// tests exercise.
func expectedControllers(t *testing.T) map[string]expectedController {
	t.Helper()
	fn := func(f any) uintptr { return reflect.ValueOf(f).Pointer() }
	routeOf := map[uintptr]string{}
	for _, r := range server.DefaultRoutes() {
		switch {
		case r.Sync != nil:
			routeOf[fn(r.Sync)] = r.Path
		case r.Customize != nil:
			routeOf[fn(r.Customize)] = r.Path
		}
	}
	gvr := func(ty chain.Type) string {
		res, ok := resourceOf[ty.Kind]
		require.True(t, ok, "no resource known for kind %s", ty.Kind)
		return ty.APIVersion + " " + res
	}
	out := map[string]expectedController{}
	for _, c := range chain.Controllers() {
		e := expectedController{parent: gvr(c.Parent), hooks: map[string]string{}}
		for _, ch := range c.Children {
			e.children = append(e.children, gvr(ch))
		}
		sort.Strings(e.children)
		for _, ch := range c.OnDelete {
			e.onDelete = append(e.onDelete, gvr(ch))
		}
		for _, ch := range c.Optional {
			e.optional = append(e.optional, gvr(ch))
		}
		require.NotNil(t, c.Sync, c.Name)
		e.hooks["sync"] = routeOf[fn(c.Sync)]
		if c.Customize != nil {
			e.hooks["customize"] = routeOf[fn(c.Customize)]
		}
		if c.Finalizes {
			e.hooks["finalize"] = routeOf[fn(c.Sync)]
		}
		for hook, path := range e.hooks {
			require.NotEmpty(t, path, "%s: no route serves its %s hook", c.Name, hook)
		}
		out[c.Name] = e
	}
	return out
}

// The derivation above agrees with the controllers the README's diagram
// (top of README.md) and its Hooks table describe, written out here by hand
// so a change to either side is seen.
func TestExpectedControllersMatchTheREADME(t *testing.T) {
	want := map[string]expectedController{
		"controlplane-glance": {"c5c3.io/v1alpha1 controlplanes",
			[]string{"batch/v1 jobs", "glance.openstack.c5c3.io/v1alpha1 glancebackends", "glance.openstack.c5c3.io/v1alpha1 glances", "v1 serviceaccounts"}, nil,
			map[string]string{"customize": "/customize/controlplane", "sync": "/sync/controlplane", "finalize": "/sync/controlplane"}, nil},
		"glancebackend": {"glance.openstack.c5c3.io/v1alpha1 glancebackends", []string{"v1 secrets"}, nil,
			map[string]string{"customize": "/customize/glancebackend", "sync": "/sync/glancebackend"}, nil},
		"glance": {"glance.openstack.c5c3.io/v1alpha1 glances",
			[]string{"apps/v1 deployments", "autoscaling/v2 horizontalpodautoscalers", "batch/v1 cronjobs", "batch/v1 jobs", "events.k8s.io/v1 events",
				"gateway.networking.k8s.io/v1 httproutes", "networking.k8s.io/v1 networkpolicies",
				"policy/v1 poddisruptionbudgets", "v1 configmaps", "v1 secrets", "v1 services"},
			[]string{"events.k8s.io/v1 events"},
			map[string]string{"customize": "/customize/glance", "sync": "/sync/glance"},
			[]string{"gateway.networking.k8s.io/v1 httproutes"}},
	}
	assert.Equal(t, want, expectedControllers(t))
}

// combo is one values combination that matters, with what it should render.
type combo struct {
	name, release, namespace string
	set                      []string
	fullname                 string // expected Service/Deployment name
	replicas                 int32
	webhook, certManager     bool
	metacontroller           bool
	noETag                   bool
	hookBaseURL              string
	hooksPort, validatePort  int32
	apiServerCIDRs           []string
	noNetworkPolicy          bool
	noMetrics                bool
	existingSecret           string
	existingToken            string
	hooksArgs, validateArgs  []string // extra args
	autoscaling              *autoscaling
	serviceAccount           string
	image                    string
	clusterDomain            string
	// gatewayAPI: the glance controller manages HTTPRoutes.
	gatewayAPI bool
}

// ownTLS: the pods make the serving certificate (no Secret of yours, no
// cert-manager); ownToken: they make the hook token.
func (c combo) ownTLS() bool   { return c.existingSecret == "" && !c.certManager }
func (c combo) ownToken() bool { return c.existingToken == "" }

// credentials: the credentials containers run.
func (c combo) credentials() bool { return c.ownTLS() || c.ownToken() }

// tlsSecret is the Secret with the serving certificate and ca.crt: yours,
// cert-manager's, or the one the chart renders empty for the pods.
func (c combo) tlsSecret() string {
	switch {
	case c.existingSecret != "":
		return c.existingSecret
	case c.certManager:
		return c.fullname + "-tls"
	}
	return c.fullname + "-certs"
}

func (c combo) tokenSecret() string { return cmp.Or(c.existingToken, c.fullname+"-token") }

// autoscaling is the HorizontalPodAutoscaler a combo asks for.
type autoscaling struct{ min, max, cpu int32 }

func combos() []combo {
	base := combo{
		release: "glance-hooks", namespace: "glance-hooks", fullname: "glance-hooks", replicas: 2,
		webhook: true, metacontroller: true, hooksPort: 8443, validatePort: 443,
		serviceAccount: "glance-hooks", image: "ghcr.io/c5c3/glance-hooks:" + chartAppVersion(),
		clusterDomain: "cluster.local",
	}
	with := func(name string, f func(c *combo)) combo {
		c := base
		c.name = name
		f(&c)
		return c
	}
	return []combo{
		with("default self-signed", func(c *combo) {}),
		with("cert-manager with chart Issuer", func(c *combo) {
			c.set = []string{"tls.certManager.enabled=true"}
			c.certManager = true
		}),
		with("cert-manager with own ClusterIssuer", func(c *combo) {
			c.set = []string{"tls.certManager.enabled=true",
				"tls.certManager.issuerRef.name=platform-ca", "tls.certManager.issuerRef.kind=ClusterIssuer"}
			c.certManager = true
		}),
		with("custom names and namespace", func(c *combo) {
			c.release, c.namespace = "image-stores", "openstack-infra"
			c.fullname = "image-stores-glance-hooks"
			c.serviceAccount = "hooks-reader"
			c.hooksPort, c.validatePort = 9000, 9443
			c.clusterDomain = "k8s.example.internal"
			c.image = "registry.example/mirror/glance-hooks:1.2.3"
			c.set = []string{"serviceAccount.name=hooks-reader", "service.hooksPort=9000", "service.validatePort=9443",
				"clusterDomain=k8s.example.internal", "image.repository=registry.example/mirror/glance-hooks",
				"image.tag=1.2.3"}
		}),
		with("fullnameOverride", func(c *combo) {
			c.set = []string{"fullnameOverride=hooks"}
			c.fullname, c.serviceAccount = "hooks", "hooks"
		}),
		with("one replica without PDB", func(c *combo) {
			c.set = []string{"replicaCount=1"}
			c.replicas = 1
		}),
		with("three replicas", func(c *combo) {
			c.set = []string{"replicaCount=3", "podDisruptionBudget.minAvailable=2"}
			c.replicas = 3
		}),
		with("autoscaling", func(c *combo) {
			c.set = []string{"autoscaling.enabled=true", "autoscaling.minReplicas=3", "autoscaling.maxReplicas=8",
				"autoscaling.targetCPUUtilizationPercentage=60", "replicaCount=1"}
			c.replicas = 3
			c.autoscaling = &autoscaling{min: 3, max: 8, cpu: 60}
		}),
		with("gateway API", func(c *combo) {
			c.set = []string{"metacontroller.gatewayAPI=true"}
			c.gatewayAPI = true
		}),
		with("hooks at a URL", func(c *combo) {
			c.set = []string{"metacontroller.hookBaseURL=http://10.0.0.5:8080/"}
			c.hookBaseURL = "http://10.0.0.5:8080"
		}),
		with("image digest", func(c *combo) {
			digest := "sha256:" + strings.Repeat("ab", 32)
			c.set = []string{"image.digest=" + digest}
			c.image = "ghcr.io/c5c3/glance-hooks@" + digest
		}),
		with("webhook disabled", func(c *combo) {
			c.set = []string{"webhook.enabled=false"}
			c.webhook = false
		}),
		with("etag off", func(c *combo) {
			c.set = []string{"metacontroller.etag.enabled=false"}
			c.noETag = true
		}),
		with("metacontroller disabled", func(c *combo) {
			c.set = []string{"metacontroller.enabled=false"}
			c.metacontroller = false
		}),
		with("no NetworkPolicy", func(c *combo) {
			c.set = []string{"networkPolicy.enabled=false"}
			c.noNetworkPolicy = true
		}),
		with("API server CIDRs", func(c *combo) {
			c.set = []string{"networkPolicy.apiServer.cidrs={10.0.0.0/24,fd00::/64}"}
			c.apiServerCIDRs = []string{"10.0.0.0/24", "fd00::/64"}
		}),
		with("no metrics", func(c *combo) {
			c.set = []string{"metrics.enabled=false"}
			c.noMetrics = true
		}),
		with("own TLS Secret", func(c *combo) {
			_, caFile := testCA()
			c.set = []string{"tls.existingSecret=platform-serving", "--set-file=tls.caBundle=" + caFile}
			c.existingSecret = "platform-serving"
		}),
		with("own token and cert-manager", func(c *combo) {
			c.set = []string{"auth.existingSecret=platform-hook-token", "tls.certManager.enabled=true"}
			c.existingToken, c.certManager = "platform-hook-token", true
		}),
		with("per-container args and resources", func(c *combo) {
			c.set = []string{"hooks.extraArgs={--max-body-bytes=16777216}", "validate.extraArgs={--api-timeout=3s}",
				"hooks.resources.limits.memory=512Mi", "validate.resources.limits.memory=128Mi"}
			c.hooksArgs, c.validateArgs = []string{"--max-body-bytes=16777216"}, []string{"--api-timeout=3s"}
		}),
	}
}

func chartAppVersion() string {
	raw := mustRead(nil, "charts/glance-hooks/Chart.yaml")
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, "appVersion:"); ok {
			return strings.Trim(strings.TrimSpace(v), `"`)
		}
	}
	panic("Chart.yaml has no appVersion")
}

func TestHelmLint(t *testing.T) {
	out, err := runHelm(t, "lint", "--strict", chartDir(t))
	require.NoError(t, err, out)
	assert.Contains(t, out, "0 chart(s) failed")
	assert.NotContains(t, out, "[WARNING]")
	assert.NotContains(t, out, "[ERROR]")
}

func TestRenderCombinations(t *testing.T) {
	for _, c := range combos() {
		t.Run(c.name, func(t *testing.T) {
			r := render(t, c.release, c.namespace, c.set...)
			checkScopes(t, r)
			dep := checkDeployment(t, r, c)
			checkService(t, r, c, dep)
			checkPDB(t, r, c, dep)
			checkRBAC(t, r, c, dep)
			checkCompositeControllers(t, r, c)
			checkServingTLS(t, r, c, dep)
			checkWebhook(t, r, c, dep)
			checkNetworkPolicy(t, r, c, dep)
		})
	}
}

// Value combinations that cannot work are refused with a message saying why.
func TestRenderRefusesBadValues(t *testing.T) {
	cases := []struct {
		set  []string
		want string
	}{
		{[]string{"replicaCount=0"}, "replicaCount"},
		{[]string{"replicaCount=2", "podDisruptionBudget.minAvailable=2"}, "must be below replicaCount"},
		{[]string{"autoscaling.enabled=true", "autoscaling.minReplicas=2", "podDisruptionBudget.minAvailable=2"}, "must be below autoscaling.minReplicas"},
		{[]string{"autoscaling.enabled=true", "autoscaling.minReplicas=4", "autoscaling.maxReplicas=3"}, "must not be below autoscaling.minReplicas"},
		{[]string{"autoscaling.targetCPUUtilizationPercentage=0"}, "targetCPUUtilizationPercentage"},
		{[]string{"webhook.timeoutSeconds=31"}, "timeoutSeconds"},
		{[]string{"tls.certManager.enabled=true", "tls.certManager.issuerRef.kind=ClusterIssuer"}, "issuerRef needs a name"},
		{[]string{"webhook.certManager.enabled=true"}, "additional properties 'certManager' not allowed"},
		{[]string{"networkPolicy.apiServer.cidrs={10.0.0.1}"}, "cidrs"},
		{[]string{"service.httpPort=80"}, "additional properties 'httpPort' not allowed"},
		{[]string{"metacontroller.hookTimeout=ten"}, "hookTimeout"},
		{[]string{"metacontroller.hookBaseURL=ftp://x"}, "hookBaseURL"},
		{[]string{"metacontroller.etag.cacheTimeoutSeconds=0"}, "cacheTimeoutSeconds"},
		{[]string{"image.digest=latest"}, "digest"},
		{[]string{"replicas=2"}, "additional properties 'replicas' not allowed"},
		{[]string{"extraArgs={--x}"}, "additional properties 'extraArgs' not allowed"},
		{[]string{"hooks.extraArgs={x}"}, "extraArgs"},
		{[]string{"terminationGracePeriodSeconds=25"}, "must be more than shutdown.drainSeconds + shutdown.graceSeconds (25)"},
		{[]string{"tls.existingSecret=mine"}, "tls.existingSecret needs tls.caBundle"},
		{[]string{"tls.existingSecret=mine", "tls.certManager.enabled=true"}, "exclude each other"},
		{[]string{"tls.caBundle=-----BEGIN CERTIFICATE-----"}, "tls.caBundle is the CA of tls.existingSecret"},
		{[]string{"tls.existingSecret=mine", "tls.caBundle=not a pem"}, "caBundle"},
		{[]string{"--set-json=metrics.prometheusRule.errorRatio=2"}, "errorRatio"},
		{[]string{"crds.upgrade=true"}, "additional properties 'upgrade' not allowed"},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.set, ","), func(t *testing.T) {
			_, err := renderRaw(t, "glance-hooks", "glance-hooks", tc.set...)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

var clusterScoped = map[string]bool{
	"ClusterRole": true, "ClusterRoleBinding": true, "CompositeController": true,
	"ValidatingWebhookConfiguration": true, "CustomResourceDefinition": true,
}

// Namespaced objects name the release namespace explicitly (so `helm
// template | kubectl apply` lands them right); cluster-scoped ones have none.
func checkScopes(t *testing.T, r *release) {
	for _, o := range r.Objects {
		if clusterScoped[o.kind()] {
			assert.Empty(t, o.namespace(), o.id())
		} else {
			assert.Equal(t, r.Namespace, o.namespace(), o.id())
		}
	}
}

func checkDeployment(t *testing.T, r *release, c combo) *appsv1.Deployment {
	var dep appsv1.Deployment
	r.one(t, "Deployment").into(t, &dep)
	assert.Equal(t, c.fullname, dep.Name)
	checkAutoscaler(t, r, c, &dep)
	if c.autoscaling == nil {
		require.NotNil(t, dep.Spec.Replicas)
		assert.Equal(t, c.replicas, *dep.Spec.Replicas)
	}
	podLabels := labels.Set(dep.Spec.Template.Labels)
	sel := labels.SelectorFromSet(dep.Spec.Selector.MatchLabels)
	assert.True(t, sel.Matches(podLabels), "the Deployment selects its own pods")

	pod := dep.Spec.Template.Spec
	assert.Equal(t, c.serviceAccount, pod.ServiceAccountName)
	require.NotNil(t, pod.AutomountServiceAccountToken)
	assert.False(t, *pod.AutomountServiceAccountToken, "no API token unless a container asks for it")
	psc := pod.SecurityContext
	require.NotNil(t, psc)
	assert.Equal(t, ptrTrue, psc.RunAsNonRoot)
	require.NotNil(t, psc.RunAsUser)
	assert.NotZero(t, *psc.RunAsUser)
	require.NotNil(t, psc.SeccompProfile)
	assert.Equal(t, corev1.SeccompProfileTypeRuntimeDefault, psc.SeccompProfile.Type)

	// Spread across nodes, selecting exactly these pods.
	require.NotEmpty(t, pod.TopologySpreadConstraints)
	keys := []string{}
	for _, tsc := range pod.TopologySpreadConstraints {
		keys = append(keys, tsc.TopologyKey)
		require.NotNil(t, tsc.LabelSelector)
		assert.True(t, labels.SelectorFromSet(tsc.LabelSelector.MatchLabels).Matches(podLabels), tsc.TopologyKey)
		assert.Equal(t, corev1.ScheduleAnyway, tsc.WhenUnsatisfiable, "a spread constraint must not keep the hooks from scheduling")
	}
	assert.Contains(t, keys, "kubernetes.io/hostname")

	want := []string{"hooks"}
	if c.webhook {
		want = append(want, "validate")
	}
	if c.credentials() {
		want = append(want, "credentials")
	}
	var names []string
	for _, ctr := range pod.Containers {
		names = append(names, ctr.Name)
		if ctr.Name != "credentials" {
			checkContainer(t, ctr, c)
		}
	}
	assert.Equal(t, want, names)
	checkCredentialsContainers(t, &dep, c)

	// Each container serves its caller's routes only, over TLS; the hooks
	// want Metacontroller's token, and only validate holds an API token.
	hooks := container(t, &dep, "hooks")
	common := func(metricsPort string, extra []string) []string {
		var out []string
		if !c.noMetrics {
			out = append(out, "--metrics-listen=:"+metricsPort)
		}
		return append(append(out, "--shutdown-drain=5s", "--shutdown-grace=20s"), extra...)
	}
	assert.Equal(t, append([]string{"serve", "--routes=hooks", "--listen=:8443",
		"--tls-cert-file=/etc/glance-hooks/tls/tls.crt", "--tls-key-file=/etc/glance-hooks/tls/tls.key",
		"--auth-token-file=/etc/glance-hooks/hook-token/token", "--job-image=" + hooks.Image}, common("9090", c.hooksArgs)...), hooks.Args)
	require.NotNil(t, pod.TerminationGracePeriodSeconds)
	assert.Greater(t, *pod.TerminationGracePeriodSeconds, int64(5+20), "the kubelet waits for the drain and the grace")
	assert.Equal(t, map[string]string{
		"tls":        "/etc/glance-hooks/tls",
		"hook-token": "/etc/glance-hooks/hook-token",
	}, mounts(t, hooks))
	checkCredentialVolume(t, volume(t, &dep, "tls"), c.ownTLS(), c.tlsSecret())
	checkCredentialVolume(t, volume(t, &dep, "hook-token"), c.ownToken(), c.tokenSecret())
	if c.webhook {
		v := container(t, &dep, "validate")
		assert.Equal(t, append([]string{"serve", "--routes=validate", "--listen=:9443",
			"--tls-cert-file=/etc/glance-hooks/tls/tls.crt", "--tls-key-file=/etc/glance-hooks/tls/tls.key"}, common("9091", c.validateArgs)...), v.Args)
		assert.Equal(t, map[string]string{
			"tls":             "/etc/glance-hooks/tls",
			"kube-api-access": "/var/run/secrets/kubernetes.io/serviceaccount",
		}, mounts(t, v))
		token := volume(t, &dep, "kube-api-access")
		require.NotNil(t, token.Projected)
		require.NotNil(t, token.Projected.Sources[0].ServiceAccountToken)
	} else if !c.credentials() {
		for _, v := range pod.Volumes {
			assert.Nil(t, v.Projected, "without the validate and credentials containers no API token is mounted: %s", v.Name)
		}
	}
	return &dep
}

// checkCredentialVolume: what the pods make themselves is written into
// memory by the credentials containers; anything else is its Secret.
func checkCredentialVolume(t *testing.T, v corev1.Volume, own bool, secret string) {
	t.Helper()
	if own {
		require.NotNil(t, v.EmptyDir, "%s: written by the credentials containers", v.Name)
		assert.Equal(t, corev1.StorageMediumMemory, v.EmptyDir.Medium, "%s: never on the node's disk", v.Name)
		return
	}
	require.NotNil(t, v.Secret, v.Name)
	assert.Equal(t, secret, v.Secret.SecretName, v.Name)
}

// checkCredentialsContainers: where the pods make the certificate or the
// token, an init container makes them before the serving containers start
// and a container with the same args renews hourly; each writes only what
// the pods make, and holds the API token it needs for that.
func checkCredentialsContainers(t *testing.T, dep *appsv1.Deployment, c combo) {
	t.Helper()
	inits := dep.Spec.Template.Spec.InitContainers
	if !c.credentials() {
		assert.Empty(t, inits)
		return
	}
	require.Len(t, inits, 1)
	init, loop := inits[0], container(t, dep, "credentials")
	assert.Equal(t, "credentials-init", init.Name)
	assert.Equal(t, append(slices.Clone(init.Args), "--every=1h"), loop.Args, "the same work, then hourly")
	args := strings.Join(init.Args, " ")
	assert.True(t, strings.HasPrefix(args, "credentials --namespace="+c.namespace), args)
	for flag, want := range map[string]bool{
		"--tls-secret=" + c.tlsSecret():                     c.ownTLS(),
		"--tls-dir=/etc/glance-hooks/tls":                   c.ownTLS(),
		"--host=" + c.fullname + "." + c.namespace + ".svc": c.ownTLS(),
		"--webhook-configuration=" + c.fullname:             c.ownTLS() && c.webhook,
		"--token-secret=" + c.tokenSecret():                 c.ownToken(),
		"--token-file=/etc/glance-hooks/hook-token/token":   c.ownToken(),
	} {
		assert.Equal(t, want, slices.Contains(init.Args, flag), "%s: %s", c.name, flag)
	}
	wantMounts := map[string]string{"kube-api-access": "/var/run/secrets/kubernetes.io/serviceaccount"}
	if c.ownTLS() {
		wantMounts["tls"] = "/etc/glance-hooks/tls"
	}
	if c.ownToken() {
		wantMounts["hook-token"] = "/etc/glance-hooks/hook-token"
	}
	for _, ctr := range []corev1.Container{init, loop} {
		checkHardened(t, ctr, c)
		got := map[string]string{}
		for _, m := range ctr.VolumeMounts {
			got[m.Name] = m.MountPath
			assert.Equal(t, m.Name == "kube-api-access", m.ReadOnly, "%s: %s is written only where the files go", ctr.Name, m.Name)
		}
		assert.Equal(t, wantMounts, got, ctr.Name)
		assert.Empty(t, ctr.Ports, "%s serves nothing", ctr.Name)
	}
}

// mounts maps a container's volume mounts (all read-only) to their paths.
func mounts(t *testing.T, ctr corev1.Container) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, m := range ctr.VolumeMounts {
		assert.True(t, m.ReadOnly, "%s: %s", ctr.Name, m.Name)
		out[m.Name] = m.MountPath
	}
	return out
}

var ptrTrue = func() *bool { b := true; return &b }()

func checkContainer(t *testing.T, ctr corev1.Container, c combo) {
	t.Helper()
	checkHardened(t, ctr, c)
	checkPorts(t, ctr, c)
}

// checkHardened: the release's image, no privilege, a memory limit.
func checkHardened(t *testing.T, ctr corev1.Container, c combo) {
	t.Helper()
	assert.Equal(t, c.image, ctr.Image, ctr.Name)
	sc := ctr.SecurityContext
	require.NotNil(t, sc, ctr.Name)
	assert.Equal(t, ptrTrue, sc.RunAsNonRoot, ctr.Name)
	assert.Equal(t, ptrTrue, sc.ReadOnlyRootFilesystem, ctr.Name)
	require.NotNil(t, sc.AllowPrivilegeEscalation, ctr.Name)
	assert.False(t, *sc.AllowPrivilegeEscalation, ctr.Name)
	require.NotNil(t, sc.Capabilities, ctr.Name)
	assert.Equal(t, []corev1.Capability{"ALL"}, sc.Capabilities.Drop, ctr.Name)
	assert.Empty(t, sc.Capabilities.Add, ctr.Name)
	assert.NotNil(t, ctr.Resources.Requests.Cpu(), ctr.Name)
	assert.False(t, ctr.Resources.Requests.Memory().IsZero(), ctr.Name)
	assert.False(t, ctr.Resources.Limits.Memory().IsZero(), ctr.Name)
}

func checkPorts(t *testing.T, ctr corev1.Container, c combo) {
	t.Helper()
	port := ctr.Ports[0]
	assert.Equal(t, ctr.Name, port.Name, "each container's first port is named after it")
	if c.noMetrics {
		assert.Len(t, ctr.Ports, 1, ctr.Name)
	} else {
		require.Len(t, ctr.Ports, 2, ctr.Name)
		assert.Equal(t, map[string]string{"hooks": "metrics-hooks", "validate": "metrics-webhook"}[ctr.Name], ctr.Ports[1].Name)
	}
	wantScheme := corev1.URISchemeHTTPS
	for what, probe := range map[string]*corev1.Probe{"/healthz": ctr.LivenessProbe, "/readyz": ctr.ReadinessProbe} {
		require.NotNil(t, probe, "%s: probe on %s", ctr.Name, what)
		require.NotNil(t, probe.HTTPGet, ctr.Name)
		assert.Equal(t, what, probe.HTTPGet.Path, ctr.Name)
		assert.Equal(t, port.Name, probe.HTTPGet.Port.String(), "%s probes its own port", ctr.Name)
		assert.Equal(t, wantScheme, probe.HTTPGet.Scheme, ctr.Name)
	}
}

func container(t *testing.T, dep *appsv1.Deployment, name string) corev1.Container {
	t.Helper()
	for _, c := range dep.Spec.Template.Spec.Containers {
		if c.Name == name {
			return c
		}
	}
	require.Failf(t, "no container", "no container %q", name)
	return corev1.Container{}
}

func volume(t *testing.T, dep *appsv1.Deployment, name string) corev1.Volume {
	t.Helper()
	for _, v := range dep.Spec.Template.Spec.Volumes {
		if v.Name == name {
			return v
		}
	}
	require.Failf(t, "no volume", "no volume %q", name)
	return corev1.Volume{}
}

func checkService(t *testing.T, r *release, c combo, dep *appsv1.Deployment) {
	var svc corev1.Service
	r.one(t, "Service").into(t, &svc)
	assert.Equal(t, c.fullname, svc.Name)
	assert.True(t, labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(dep.Spec.Template.Labels)),
		"the Service selects the hook pods")
	ports := map[string]corev1.ServicePort{}
	for _, p := range svc.Spec.Ports {
		ports[p.Name] = p
	}
	want := map[string]int32{"hooks": c.hooksPort}
	if c.webhook {
		want["validate"] = c.validatePort
	}
	if !c.noMetrics {
		want["metrics-hooks"] = 9090
		if c.webhook {
			want["metrics-webhook"] = 9091
		}
	}
	got := map[string]int32{}
	for name, p := range ports {
		got[name] = p.Port
		// The target is a named port of a container.
		found := false
		for _, ctr := range dep.Spec.Template.Spec.Containers {
			for _, cp := range ctr.Ports {
				found = found || cp.Name == p.TargetPort.String()
			}
		}
		assert.True(t, found, "Service port %s targets container port %q, which no container has", name, p.TargetPort.String())
	}
	assert.Equal(t, want, got)
}

// checkAutoscaler: with autoscaling, a HorizontalPodAutoscaler scales this
// Deployment on the hooks container's CPU, and the Deployment names no
// replica count an upgrade would reset it to; without, there is none.
func checkAutoscaler(t *testing.T, r *release, c combo, dep *appsv1.Deployment) {
	hpas := r.find("HorizontalPodAutoscaler")
	if c.autoscaling == nil {
		assert.Empty(t, hpas)
		return
	}
	assert.Nil(t, dep.Spec.Replicas, "the autoscaler owns the replica count")
	require.Len(t, hpas, 1)
	var hpa autoscalingv2.HorizontalPodAutoscaler
	hpas[0].into(t, &hpa)
	assert.Equal(t, autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: dep.Name}, hpa.Spec.ScaleTargetRef)
	require.NotNil(t, hpa.Spec.MinReplicas)
	assert.Equal(t, c.autoscaling.min, *hpa.Spec.MinReplicas)
	assert.Equal(t, c.autoscaling.max, hpa.Spec.MaxReplicas)
	require.Len(t, hpa.Spec.Metrics, 1)
	m := hpa.Spec.Metrics[0]
	require.Equal(t, autoscalingv2.ContainerResourceMetricSourceType, m.Type)
	require.NotNil(t, m.ContainerResource)
	assert.Equal(t, corev1.ResourceCPU, m.ContainerResource.Name)
	assert.Equal(t, "hooks", m.ContainerResource.Container)
	require.NotNil(t, m.ContainerResource.Target.AverageUtilization)
	assert.Equal(t, c.autoscaling.cpu, *m.ContainerResource.Target.AverageUtilization)
	cpu := container(t, dep, "hooks").Resources.Requests[corev1.ResourceCPU]
	assert.False(t, cpu.IsZero(), "utilization is relative to the hooks container's CPU request")
}

func checkPDB(t *testing.T, r *release, c combo, dep *appsv1.Deployment) {
	pdbs := r.find("PodDisruptionBudget")
	if c.replicas < 2 {
		assert.Empty(t, pdbs, "with one replica a PDB would block every node drain")
		return
	}
	require.Len(t, pdbs, 1)
	var pdb policyv1.PodDisruptionBudget
	pdbs[0].into(t, &pdb)
	assert.True(t, labels.SelectorFromSet(pdb.Spec.Selector.MatchLabels).Matches(labels.Set(dep.Spec.Template.Labels)))
	require.NotNil(t, pdb.Spec.MinAvailable)
	assert.Less(t, pdb.Spec.MinAvailable.IntValue(), int(c.replicas), "the budget must leave room for a drain")
	assert.GreaterOrEqual(t, pdb.Spec.MinAvailable.IntValue(), 1)
}

func checkRBAC(t *testing.T, r *release, c combo, dep *appsv1.Deployment) {
	roles := map[string]rbacv1.ClusterRole{}
	for _, o := range r.find("ClusterRole") {
		var cr rbacv1.ClusterRole
		o.into(t, &cr)
		roles[cr.Name] = cr
		for _, rule := range cr.Rules {
			for _, field := range [][]string{rule.APIGroups, rule.Resources, rule.Verbs} {
				assert.NotContains(t, field, "*", "%s: no wildcards", cr.Name)
			}
			assert.NotContains(t, rule.Resources, "clusterroles", cr.Name)
			assert.Empty(t, rule.NonResourceURLs, cr.Name)
		}
	}
	checkCredentialsRole(t, r, c)
	validateRole := c.fullname + "-validate"
	mcRole := c.fullname + "-metacontroller"
	credsRole := c.fullname + "-credentials"
	var want []string
	if c.ownTLS() && c.webhook {
		want = append(want, credsRole)
		assert.Equal(t, []rbacv1.PolicyRule{{
			APIGroups:     []string{"admissionregistration.k8s.io"},
			Resources:     []string{"validatingwebhookconfigurations"},
			ResourceNames: []string{c.fullname},
			Verbs:         []string{"get", "update"},
		}}, roles[credsRole].Rules, "the caBundle of this release's webhook, nothing else")
	}
	if c.webhook {
		want = append(want, validateRole)
		// Least privilege: get and list GlanceBackends, get the Glance a
		// backend names and the ControlPlane that would project it.
		assert.Equal(t, []rbacv1.PolicyRule{{
			APIGroups: []string{"glance.openstack.c5c3.io"},
			Resources: []string{"glancebackends"},
			Verbs:     []string{"get", "list"},
		}, {
			APIGroups: []string{"glance.openstack.c5c3.io"},
			Resources: []string{"glances"},
			Verbs:     []string{"get"},
		}, {
			APIGroups: []string{"c5c3.io"},
			Resources: []string{"controlplanes"},
			Verbs:     []string{"get"},
		}}, roles[validateRole].Rules)
	}
	if c.metacontroller {
		want = append(want, mcRole)
		checkMetacontrollerRole(t, roles[mcRole], expectedControllers(t), c.gatewayAPI)
	}
	got := make([]string, 0, len(roles))
	for name := range roles {
		got = append(got, name)
	}
	sort.Strings(got)
	sort.Strings(want)
	assert.Equal(t, want, got)

	bindings := map[string]rbacv1.ClusterRoleBinding{}
	for _, o := range r.find("ClusterRoleBinding") {
		var b rbacv1.ClusterRoleBinding
		o.into(t, &b)
		bindings[b.RoleRef.Name] = b
		_, ok := roles[b.RoleRef.Name]
		assert.True(t, ok, "binding %s refers to a role the chart renders", b.Name)
	}
	assert.Len(t, bindings, len(roles))
	if c.webhook {
		assert.Equal(t, []rbacv1.Subject{{Kind: "ServiceAccount", Name: dep.Spec.Template.Spec.ServiceAccountName,
			Namespace: c.namespace}}, bindings[validateRole].Subjects, "bound to the hook pods' ServiceAccount")
		sas := r.find("ServiceAccount")
		require.Len(t, sas, 1)
		assert.Equal(t, c.serviceAccount, sas[0].name())
		assert.Equal(t, false, sas[0]["automountServiceAccountToken"])
	}
	if c.metacontroller {
		assert.Equal(t, []rbacv1.Subject{{Kind: "ServiceAccount", Name: "metacontroller", Namespace: "metacontroller"}},
			bindings[mcRole].Subjects)
	}
}

// checkCredentialsRole: the credentials containers get and update the
// Secrets the chart renders for them, by name; they create nothing and read
// no other Secret.
func checkCredentialsRole(t *testing.T, r *release, c combo) {
	t.Helper()
	if !c.credentials() {
		assert.Empty(t, r.find("Role"), "everything the hooks read is cluster-wide")
		return
	}
	var role rbacv1.Role
	r.one(t, "Role").into(t, &role)
	var names []string
	if c.ownTLS() {
		names = append(names, c.tlsSecret())
	}
	if c.ownToken() {
		names = append(names, c.tokenSecret())
	}
	assert.Equal(t, []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, ResourceNames: names,
		Verbs: []string{"get", "update"}}}, role.Rules)
	var binding rbacv1.RoleBinding
	r.one(t, "RoleBinding").into(t, &binding)
	assert.Equal(t, role.Name, binding.RoleRef.Name)
	assert.Equal(t, []rbacv1.Subject{{Kind: "ServiceAccount", Name: c.serviceAccount, Namespace: c.namespace}}, binding.Subjects)
}

// Metacontroller must be able to watch every parent, write its status, and
// manage every child type the CompositeControllers declare.
func checkMetacontrollerRole(t *testing.T, role rbacv1.ClusterRole, controllers map[string]expectedController, gatewayAPI bool) {
	allows := func(group, resource, verb string) bool {
		for _, r := range role.Rules {
			if slices.Contains(r.APIGroups, group) && slices.Contains(r.Resources, resource) && slices.Contains(r.Verbs, verb) {
				return true
			}
		}
		return false
	}
	for name, cc := range controllers {
		group, resource := splitGVR(cc.parent)
		for _, verb := range []string{"get", "list", "watch"} {
			assert.True(t, allows(group, resource, verb), "%s: %s %s", name, verb, resource)
		}
		assert.True(t, allows(group, resource+"/status", "update"), "%s: update %s/status", name, resource)
		for _, child := range cc.registered(gatewayAPI) {
			group, resource := splitGVR(child)
			verbs := []string{"get", "list", "watch", "create", "update", "patch", "delete"}
			if slices.Contains(cc.onDelete, child) {
				verbs = []string{"get", "list", "watch", "create", "delete"}
			}
			for _, verb := range verbs {
				assert.True(t, allows(group, resource, verb), "%s: %s %s", name, verb, resource)
			}
		}
	}
	// Metacontroller watches what the customize hooks ask for: answer every
	// customize fixture and check the role covers each related resource.
	related := relatedResources(t)
	require.NotEmpty(t, related)
	for _, rr := range related {
		group, resource := splitGVR(rr)
		for _, verb := range []string{"get", "list", "watch"} {
			assert.True(t, allows(group, resource, verb), "related %s: %s", rr, verb)
		}
	}
}

// relatedResources answers every customize fixture request with the
// controller's own Customize and returns the related resources asked for,
// as "<apiVersion> <resource>".
func relatedResources(t *testing.T) []string {
	t.Helper()
	byPath := map[string]func(*metacontroller.CustomizeRequest) (*metacontroller.CustomizeResponse, error){}
	for _, r := range server.DefaultRoutes() {
		if r.Customize != nil {
			byPath[r.Path] = r.Customize
		}
	}
	requests, err := filepath.Glob(filepath.Join(repoRoot(t), "test", "fixtures", "customize-*", "*", "request.json"))
	require.NoError(t, err)
	seen := map[string]bool{}
	for _, p := range requests {
		hookDir := filepath.Base(filepath.Dir(filepath.Dir(p))) // customize-glance
		customize := byPath["/"+strings.Replace(hookDir, "-", "/", 1)]
		require.NotNil(t, customize, "no route for fixture %s", p)
		var req metacontroller.CustomizeRequest
		require.NoError(t, json.Unmarshal(mustReadAbs(t, p), &req), p)
		resp, err := customize(&req)
		if err != nil {
			continue // a fixture of a refused request
		}
		for _, rr := range resp.RelatedResources {
			seen[rr.APIVersion+" "+rr.Resource] = true
		}
	}
	return keys(seen)
}

// splitGVR turns "apps/v1 deployments" into ("apps", "deployments").
func splitGVR(s string) (group, resource string) {
	gv, resource, _ := strings.Cut(s, " ")
	if g, _, ok := strings.Cut(gv, "/"); ok {
		return g, resource
	}
	return "", resource
}

// hookURL is where Metacontroller posts a hook of cc.
func hookURL(t testing.TB, cc kubechain.CompositeController, hook string) string {
	t.Helper()
	w := cc.Spec.Hooks[hook].Webhook
	require.NotNil(t, w, "%s %s: a webhook", cc.Metadata.Name, hook)
	u, err := w.Endpoint()
	require.NoError(t, err, "%s %s", cc.Metadata.Name, hook)
	return u
}

// syncHost is the host name Metacontroller dials for cc's sync hook: what
// the serving certificate must be valid for.
func syncHost(t testing.TB, cc kubechain.CompositeController) string {
	t.Helper()
	return strings.Split(strings.TrimPrefix(hookURL(t, cc, kubechain.HookSync), "https://"), ":")[0]
}

func compositeControllers(t *testing.T, r *release) map[string]kubechain.CompositeController {
	out := map[string]kubechain.CompositeController{}
	for _, o := range r.find("CompositeController") {
		var cc kubechain.CompositeController
		o.into(t, &cc)
		assert.Equal(t, "metacontroller.k8s.io/v1alpha1", cc.APIVersion)
		out[cc.Metadata.Name] = cc
	}
	return out
}

func checkCompositeControllers(t *testing.T, r *release, c combo) {
	ccs := compositeControllers(t, r)
	if !c.metacontroller {
		assert.Empty(t, ccs)
		return
	}
	expected := expectedControllers(t)
	require.Len(t, ccs, len(expected))
	for name, want := range expected {
		cc, ok := ccs[name]
		require.True(t, ok, "CompositeController %s", name)
		require.NotNil(t, cc.Spec.GenerateSelector, name)
		assert.True(t, *cc.Spec.GenerateSelector, "%s: generateSelector", name)

		assert.Equal(t, want.parent, cc.Spec.ParentResource.APIVersion+" "+cc.Spec.ParentResource.Resource, name)
		var children []string
		for _, ch := range cc.Spec.ChildResources {
			children = append(children, ch.APIVersion+" "+ch.Resource)
			require.NotNil(t, ch.UpdateStrategy, "%s %s", name, ch.Resource)
			if slices.Contains(want.onDelete, ch.APIVersion+" "+ch.Resource) {
				assert.Equal(t, "OnDelete", ch.UpdateStrategy.Method, "%s: %s are created and deleted, never updated", name, ch.Resource)
				continue
			}
			assert.Equal(t, "InPlace", ch.UpdateStrategy.Method,
				"%s: children of %s must follow the hook (the default OnDelete never updates them)", name, ch.Resource)
		}
		sort.Strings(children)
		assert.Equal(t, want.registered(c.gatewayAPI), children, name)

		gotHooks := map[string]string{}
		for hook, h := range cc.Spec.Hooks {
			w := h.Webhook
			require.NotNil(t, w, "%s %s: a webhook", name, hook)
			d, err := time.ParseDuration(w.Timeout)
			require.NoError(t, err, "%s %s timeout", name, hook)
			assert.True(t, d > 0 && d <= 30*time.Second, "%s %s timeout %s", name, hook, d)
			// The hooks answer an unchanged request 304 (their ETag is a digest
			// of the request and the build); Metacontroller needs both timeouts.
			if c.noETag {
				assert.Nil(t, w.Etag, "%s %s: etag off", name, hook)
			} else {
				require.NotNil(t, w.Etag, "%s %s: etag", name, hook)
				assert.True(t, w.Etag.Enabled, "%s %s: etag", name, hook)
				require.NotNil(t, w.Etag.CacheTimeoutSeconds, "%s %s", name, hook)
				require.NotNil(t, w.Etag.CacheCleanupSeconds, "%s %s", name, hook)
				assert.Positive(t, *w.Etag.CacheTimeoutSeconds, "%s %s: without a timeout answers are never forgotten", name, hook)
			}
			if c.hookBaseURL != "" {
				assert.Nil(t, w.Service, "%s %s", name, hook)
				assert.Nil(t, w.CABundle, "%s %s: a URL of your own carries no CA", name, hook)
				assert.Nil(t, w.Authorization, "%s %s: the token goes to the chart's Service only", name, hook)
				require.NotNil(t, w.URL, "%s %s", name, hook)
				gotHooks[hook] = strings.TrimPrefix(*w.URL, c.hookBaseURL)
				continue
			}
			assert.Nil(t, w.URL, "%s %s", name, hook)
			require.NotNil(t, w.Service, "%s %s", name, hook)
			require.NotNil(t, w.Path, "%s %s", name, hook)
			gotHooks[hook] = *w.Path
			assert.Equal(t, fmt.Sprintf("https://%s.%s:%d%s", c.fullname, c.namespace, c.hooksPort, *w.Path),
				hookURL(t, cc, hook), "%s %s: calls the chart's Service over TLS", name, hook)
			require.NotNil(t, w.CABundle, "%s %s", name, hook)
			assert.Equal(t, &kubechain.SecretKeyRef{Name: c.tlsSecret(), Namespace: c.namespace, Key: "ca.crt"},
				w.CABundle.SecretRef, "%s %s: trusts the CA of the serving certificate", name, hook)
			require.NotNil(t, w.Authorization, "%s %s", name, hook)
			assert.Equal(t, "Bearer", w.Authorization.Type)
			assert.Equal(t, &kubechain.SecretKeyRef{Name: c.tokenSecret(), Namespace: c.namespace, Key: "token"},
				w.Authorization.SecretRef, "%s %s: sends the token the hooks container reads", name, hook)
		}
		// Metacontroller restarts a controller (and reads its Secrets again)
		// only when its spec changes: an annotation would change nothing.
		assert.NotContains(t, cc.Metadata.Annotations, "glance-hooks.c5c3.io/credentials-revision", name)
		assert.Equal(t, want.hooks, gotHooks, "%s: hook paths", name)
	}
}

// checkServingTLS: both containers serve the certificate of the TLS
// Secret: the one the chart renders empty for the pods to fill, yours, or
// cert-manager's. A token the pods make goes into a Secret the chart renders
// empty too: no key material in the manifests.
func checkServingTLS(t *testing.T, r *release, c combo, dep *appsv1.Deployment) {
	var wantSecrets []string
	if c.ownToken() {
		wantSecrets = append(wantSecrets, c.tokenSecret())
	}
	if c.ownTLS() {
		wantSecrets = append(wantSecrets, c.tlsSecret())
	}
	var gotSecrets []string
	for _, o := range r.find("Secret") {
		var secret corev1.Secret
		o.into(t, &secret)
		gotSecrets = append(gotSecrets, secret.Name)
		assert.Empty(t, secret.Data, "%s: rendered empty, filled in the cluster", secret.Name)
		assert.Equal(t, corev1.SecretTypeOpaque, secret.Type, secret.Name)
		assert.Equal(t, r.Namespace, secret.Namespace)
	}
	assert.ElementsMatch(t, wantSecrets, gotSecrets)

	// Metacontroller calls https://<name>.<namespace>:<port>, the API server
	// <name>.<namespace>.svc.
	names := []string{c.fullname + "." + c.namespace, c.fullname + "." + c.namespace + ".svc",
		c.fullname + "." + c.namespace + ".svc." + c.clusterDomain}
	switch {
	case c.existingSecret != "":
		assert.Empty(t, r.find("Certificate"))
	case c.certManager:
		checkCertManager(t, r, c, dep, names)
	default:
		assert.Empty(t, r.find("Certificate"))
		init := dep.Spec.Template.Spec.InitContainers[0]
		for _, n := range names {
			assert.Contains(t, init.Args, "--host="+n, "the certificate the pods make names %s", n)
		}
	}
}

func checkCertManager(t *testing.T, r *release, c combo, dep *appsv1.Deployment, names []string) {
	t.Helper()
	cert := r.named(t, "Certificate", c.fullname)
	assert.Equal(t, volume(t, dep, "tls").Secret.SecretName, str(cert, "spec", "secretName"), "the pods mount the Secret cert-manager writes")
	for _, n := range names {
		assert.Contains(t, get(cert, "spec", "dnsNames"), n)
	}
	if str(cert, "spec", "issuerRef", "name") != c.fullname+"-ca" {
		assert.Empty(t, r.find("Issuer"), "an own issuer is used as is")
		assert.Len(t, r.find("Certificate"), 1)
		return
	}
	// The chart's own CA: a self-signed Issuer issues a CA certificate,
	// whose Issuer issues the serving certificate, so ca.crt stays the
	// same across the serving certificate's renewals.
	ca := r.named(t, "Certificate", c.fullname+"-ca")
	assert.Equal(t, true, get(ca, "spec", "isCA"))
	assert.Equal(t, c.fullname+"-selfsigned", str(ca, "spec", "issuerRef", "name"))
	caIssuer := r.named(t, "Issuer", c.fullname+"-ca")
	assert.Equal(t, str(ca, "spec", "secretName"), str(caIssuer, "spec", "ca", "secretName"))
	assert.NotNil(t, get(r.named(t, "Issuer", c.fullname+"-selfsigned"), "spec", "selfSigned"))
	assert.Len(t, r.find("Issuer"), 2)
}

func checkWebhook(t *testing.T, r *release, c combo, dep *appsv1.Deployment) {
	vwcs := r.find("ValidatingWebhookConfiguration")
	if !c.webhook {
		assert.Empty(t, vwcs)
		return
	}
	require.Len(t, vwcs, 1)
	var vwc admissionv1.ValidatingWebhookConfiguration
	vwcs[0].into(t, &vwc)
	require.Len(t, vwc.Webhooks, 1)
	wh := vwc.Webhooks[0]
	require.NotNil(t, wh.FailurePolicy)
	assert.Equal(t, admissionv1.Fail, *wh.FailurePolicy, "the webhook fails closed")
	require.NotNil(t, wh.SideEffects)
	assert.Equal(t, admissionv1.SideEffectClassNone, *wh.SideEffects)
	assert.Equal(t, []string{"v1"}, wh.AdmissionReviewVersions)
	require.NotNil(t, wh.TimeoutSeconds)
	assert.True(t, *wh.TimeoutSeconds >= 1 && *wh.TimeoutSeconds <= 30)
	require.NotNil(t, wh.ClientConfig.Service)
	assert.Nil(t, wh.ClientConfig.URL)
	svc := wh.ClientConfig.Service
	assert.Equal(t, c.fullname, svc.Name)
	assert.Equal(t, c.namespace, svc.Namespace)
	require.NotNil(t, svc.Port)
	assert.Equal(t, c.validatePort, *svc.Port)
	require.NotNil(t, svc.Path)
	assert.Equal(t, "/validate", *svc.Path)

	// CREATE and UPDATE of each of the three kinds, nothing else.
	covered := map[string][]string{}
	for _, rule := range wh.Rules {
		for _, g := range rule.APIGroups {
			for _, res := range rule.Resources {
				for _, op := range rule.Operations {
					covered[g+"/"+res] = append(covered[g+"/"+res], string(op))
				}
			}
		}
		assert.Equal(t, []string{"v1alpha1"}, rule.APIVersions)
	}
	assert.Equal(t, map[string][]string{
		"c5c3.io/controlplanes":                   {"CREATE", "UPDATE"},
		"glance.openstack.c5c3.io/glances":        {"CREATE", "UPDATE"},
		"glance.openstack.c5c3.io/glancebackends": {"CREATE", "UPDATE"},
	}, covered)

	if c.certManager {
		assert.Empty(t, wh.ClientConfig.CABundle, "cert-manager's injector fills it in")
		assert.Equal(t, c.namespace+"/"+c.fullname, vwc.Annotations["cert-manager.io/inject-ca-from"],
			"from the serving Certificate, whose Secret the pods mount")
		return
	}
	assert.NotContains(t, vwc.Annotations, "cert-manager.io/inject-ca-from")
	if c.existingSecret != "" {
		ca, _ := testCA()
		assert.Equal(t, ca, string(wh.ClientConfig.CABundle), "the webhook trusts tls.caBundle")
		return
	}
	assert.Empty(t, wh.ClientConfig.CABundle, "the credentials containers set it to the CA they make")
}

// checkNetworkPolicy: only Metacontroller reaches the hooks port, only the
// API server the validate port (where anything says where it calls from),
// and nothing else reaches the pods.
func checkNetworkPolicy(t *testing.T, r *release, c combo, dep *appsv1.Deployment) {
	nps := r.find("NetworkPolicy")
	if c.noNetworkPolicy {
		assert.Empty(t, nps)
		return
	}
	require.Len(t, nps, 1)
	var np networkingv1.NetworkPolicy
	nps[0].into(t, &np)
	sel, err := metav1.LabelSelectorAsSelector(&np.Spec.PodSelector)
	require.NoError(t, err)
	assert.True(t, sel.Matches(labels.Set(dep.Spec.Template.Labels)), "the policy selects the hook pods")
	assert.Equal(t, []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}, np.Spec.PolicyTypes)

	// The helm test pod's rule lets this release's test pod alone in.
	var testRule *networkingv1.NetworkPolicyIngressRule
	byPort := map[string]networkingv1.NetworkPolicyIngressRule{}
	for i, rule := range np.Spec.Ingress {
		if len(rule.From) == 1 && rule.From[0].PodSelector != nil && rule.From[0].PodSelector.MatchLabels["app.kubernetes.io/component"] == "helm-test" {
			testRule = &np.Spec.Ingress[i]
			continue
		}
		for _, p := range rule.Ports {
			byPort[p.Port.String()] = rule
		}
	}
	want := []string{"hooks"}
	if c.webhook {
		want = append(want, "validate")
	}
	if !c.noMetrics {
		want = append(want, "metrics-hooks")
		if c.webhook {
			want = append(want, "metrics-webhook")
		}
		assert.Empty(t, byPort["metrics-hooks"].From, "without networkPolicy.metricsPeers any scraper may come")
	}
	assert.ElementsMatch(t, want, keys(byPort), "a rule per container port, nothing else open")
	containerPorts := map[string]bool{}
	for _, ctr := range dep.Spec.Template.Spec.Containers {
		for _, p := range ctr.Ports {
			containerPorts[p.Name] = true
		}
	}
	for name := range byPort {
		assert.True(t, containerPorts[name], "the policy names port %q, which no container has", name)
	}
	require.NotNil(t, testRule, "networkPolicy.allowHelmTest is on by default")
	var testPorts []string
	for _, p := range testRule.Ports {
		testPorts = append(testPorts, p.Port.String())
	}
	assert.ElementsMatch(t, want, testPorts, "the test pod reaches what it checks")
	var testPod corev1.Pod
	r.named(t, "Pod", c.fullname+"-test").into(t, &testPod)
	assert.True(t, labels.SelectorFromSet(testRule.From[0].PodSelector.MatchLabels).Matches(labels.Set(testPod.Labels)), "the rule lets the test pod in")
	assert.False(t, sel.Matches(labels.Set(testPod.Labels)), "the test pod is not one of the hook pods (Service, PDB)")

	hooks := byPort["hooks"]
	require.Len(t, hooks.From, 1)
	assert.Equal(t, &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": "metacontroller"}},
		hooks.From[0].NamespaceSelector)
	assert.Equal(t, &metav1.LabelSelector{MatchLabels: map[string]string{"app.kubernetes.io/name": "metacontroller"}},
		hooks.From[0].PodSelector, "Metacontroller's pods, not its whole namespace")
	if !c.webhook {
		return
	}
	var cidrs []string
	for _, peer := range byPort["validate"].From {
		require.NotNil(t, peer.IPBlock)
		cidrs = append(cidrs, peer.IPBlock.CIDR)
	}
	// helm template cannot read the API servers' addresses: only the CIDRs
	// given, or (none given) the port stays open, which NOTES.txt warns of.
	assert.Equal(t, c.apiServerCIDRs, cidrs)
}

// helm template prints the same bytes on every run, with default values
// too: the pods make the CA, the serving certificate and the hook token in
// the cluster, so a GitOps sync never rotates them behind Metacontroller's
// back, and no key material is in the manifests.
func TestHelmTemplateIsDeterministic(t *testing.T) {
	_, caFile := testCA()
	for name, set := range map[string][]string{
		"defaults":     nil,
		"own Secret":   {"tls.existingSecret=platform-serving", "--set-file=tls.caBundle=" + caFile},
		"cert-manager": {"tls.certManager.enabled=true"},
		"own token":    {"auth.existingSecret=platform-hook-token", "tls.certManager.enabled=true"},
	} {
		t.Run(name, func(t *testing.T) {
			first, err := renderRaw(t, "glance-hooks", "glance-hooks", set...)
			require.NoError(t, err)
			second, err := renderRaw(t, "glance-hooks", "glance-hooks", set...)
			require.NoError(t, err)
			assert.Equal(t, first, second, "two helm template runs give the same bytes")
			assert.NotContains(t, first, "PRIVATE KEY", "no key material in the manifests")
			assert.NotContains(t, first, "BEGIN CERTIFICATE", "no certificate but the one given")
		})
	}
	// The token of your own is the Secret named, everywhere it is read.
	r := render(t, "glance-hooks", "glance-hooks", "auth.existingSecret=platform-hook-token")
	for _, o := range r.Objects {
		assert.NotEqual(t, "glance-hooks-token", o.name(), "the chart makes no token Secret of its own")
	}
	var dep appsv1.Deployment
	r.one(t, "Deployment").into(t, &dep)
	assert.Equal(t, "platform-hook-token", volume(t, &dep, "hook-token").Secret.SecretName)
	for _, o := range r.find("CompositeController") {
		ref := get(o, "spec", "hooks", "sync", "webhook", "authorization", "secretRef").(map[string]any)
		assert.Equal(t, "platform-hook-token", ref["name"], o.id())
	}
}

// The ServiceMonitor scrapes both metrics ports of the Service over TLS,
// trusting the serving certificate's CA for the Service's name.
func TestServiceMonitor(t *testing.T) {
	r := render(t, "glance-hooks", "glance-hooks", "metrics.serviceMonitor.enabled=true", "metrics.serviceMonitor.labels.release=kube-prometheus")
	sm := r.named(t, "ServiceMonitor", "glance-hooks")
	assert.Equal(t, "kube-prometheus", str(sm, "metadata", "labels", "release"))
	var svc corev1.Service
	r.one(t, "Service").into(t, &svc)
	sel, _ := get(sm, "spec", "selector", "matchLabels").(map[string]any)
	for k, v := range sel {
		assert.Equal(t, v, svc.Labels[k], "the ServiceMonitor selects the Service by %s", k)
	}
	var ports []string
	for _, e := range get(sm, "spec", "endpoints").([]any) {
		ep := e.(map[string]any)
		ports = append(ports, str(ep, "port"))
		assert.Equal(t, "https", str(ep, "scheme"))
		assert.Equal(t, "/metrics", str(ep, "path"))
		assert.Equal(t, "glance-hooks-certs", str(ep, "tlsConfig", "ca", "secret", "name"))
		assert.Equal(t, "ca.crt", str(ep, "tlsConfig", "ca", "secret", "key"))
		assert.Equal(t, "glance-hooks.glance-hooks.svc", str(ep, "tlsConfig", "serverName"))
	}
	assert.Equal(t, []string{"metrics-hooks", "metrics-webhook"}, ports)
	for _, p := range ports {
		found := false
		for _, sp := range svc.Spec.Ports {
			found = found || sp.Name == p
		}
		assert.True(t, found, "the Service has port %s", p)
	}
	assert.Empty(t, render(t, "glance-hooks", "glance-hooks").find("ServiceMonitor"), "off by default: it needs the Prometheus operator's CRD")
}

// The PrometheusRule holds exactly the alert expressions docs/operations.md
// documents (test/promql_test.go checks those against the metrics the
// service exports), with the thresholds of its values.
func TestPrometheusRuleMatchesREADME(t *testing.T) {
	r := render(t, "glance-hooks", "glance-hooks", "metrics.prometheusRule.enabled=true")
	rule := r.named(t, "PrometheusRule", "glance-hooks")
	groups := get(rule, "spec", "groups").([]any)
	require.Len(t, groups, 1)
	var exprs []string
	for _, rr := range groups[0].(map[string]any)["rules"].([]any) {
		exprs = append(exprs, strings.Join(strings.Fields(str(rr.(map[string]any), "expr")), " "))
	}
	var documented []string
	for _, m := range regexp.MustCompile("(?s)```promql\n(.*?)```").FindAllStringSubmatch(string(mustRead(t, "docs/operations.md")), -1) {
		var lines []string
		for _, l := range strings.Split(m[1], "\n") {
			if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
				lines = append(lines, l)
			}
		}
		documented = append(documented, strings.Join(strings.Fields(strings.Join(lines, " ")), " "))
	}
	assert.Equal(t, documented, exprs)

	changed := render(t, "glance-hooks", "glance-hooks", "metrics.prometheusRule.enabled=true", "--set-json=metrics.prometheusRule.latencySeconds=4.5")
	rules := get(changed.named(t, "PrometheusRule", "glance-hooks"), "spec", "groups").([]any)[0].(map[string]any)["rules"].([]any)
	assert.True(t, strings.HasSuffix(str(rules[1].(map[string]any), "expr"), "> 4.5"), "the latency threshold comes from the values")
}
