package test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/ini.v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/c5c3/glance-hooks/simulate/chain"
	"github.com/c5c3/glance-hooks/test/netpolicy"
)

// reachGlance is the standalone Glance behind a gateway, with a
// NetworkPolicy admitting the gateways' namespace.
const reachGlance = standaloneGlance + `  gateway:
    hostname: images.example.com
    parentRef: {name: edge, namespace: gateways, sectionName: https}
  networkPolicy:
    ingress:
      - namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: gateways}}
`

const archiveBackend = `
apiVersion: glance.openstack.c5c3.io/v1alpha1
kind: GlanceBackend
metadata: {name: archive, namespace: openstack}
spec:
  glanceRef: {name: glance}
  type: S3
  s3:
    host: https://198.51.100.7:9000
    bucket: archive
    credentialsSecretRef: {name: garage-s3-credentials}
`

var (
	routeRef  = chain.Ref{APIVersion: "gateway.networking.k8s.io/v1", Kind: "HTTPRoute", Namespace: "openstack", Name: "glance"}
	policyRef = chain.Ref{APIVersion: "networking.k8s.io/v1", Kind: "NetworkPolicy", Namespace: "openstack", Name: "glance"}
)

// TestReachStandalone: a Glance behind a gateway and a NetworkPolicy. The
// route goes to the Service on 9292 with the long timeout and is reported
// once its Gateway accepts it; status.endpoint is the gateway's URL. A
// backend attached later is in the policy before any Deployment mounts a
// config that names it: checked after every sync the chain runs, against
// what the policy in the cluster allowed before that sync (Metacontroller
// applies one sync's children in no set order).
func TestReachStandalone(t *testing.T) {
	s := newScenario(t)
	var before *networkingv1.NetworkPolicySpec
	s.w.AfterSync = func(w *chain.World, _ chain.Ref) error {
		if err := consistentMounts(w); err != nil {
			return err
		}
		err := mountedStoresAllowed(w, before)
		before = nil
		if o, ok := w.Get(policyRef); ok {
			before = decodePolicy(o)
		}
		return err
	}
	s.apply(credentials + "\n---\n" + reachGlance + "\n---\n" + standaloneBackend("primary", "glance-images", "garage-s3-credentials", true))
	s.converge()

	route, ok := s.w.Get(routeRef)
	require.True(t, ok, "the HTTPRoute is a child of the Glance")
	spec, _ := json.Marshal(route["spec"])
	assert.JSONEq(t, `{"hostnames":["images.example.com"],"parentRefs":[{"name":"edge","namespace":"gateways","sectionName":"https"}],
		"rules":[{"backendRefs":[{"name":"glance","port":9292}],"matches":[{"path":{"type":"PathPrefix","value":"/"}}],"timeouts":{"request":"4h"}}]}`, string(spec))
	assert.Equal(t, "https://images.example.com/", s.get("Glance", "glance")["status"].(map[string]any)["endpoint"])
	assert.Equal(t, "False/HTTPRouteNotAccepted", s.condition("Glance", "glance", "HTTPRouteReady"), "no Gateway controller has seen it")
	assert.Equal(t, "True/NetworkPolicyReady", s.condition("Glance", "glance", "NetworkPolicyReady"))
	assert.Equal(t, "False/NotAllReady", s.condition("Glance", "glance", "Ready")[:len("False/NotAllReady")])

	// The Gateway's controller accepts the route.
	require.True(t, s.w.SetStatus(routeRef, map[string]any{"parents": []any{map[string]any{
		"parentRef": map[string]any{"name": "edge", "namespace": "gateways", "sectionName": "https"}, "controllerName": "example.com/gateway",
		"conditions": []any{map[string]any{"type": "Accepted", "status": "True", "reason": "Accepted", "message": "", "lastTransitionTime": "2026-01-01T00:00:00Z"}}}}}))
	s.converge()
	assert.Equal(t, "True/HTTPRouteAccepted", s.condition("Glance", "glance", "HTTPRouteReady"))
	assert.Equal(t, "True/AllReady", s.condition("Glance", "glance", "Ready"))

	// A backend on another endpoint: the policy allows it first.
	s.apply(archiveBackend)
	s.converge()
	_, backends := mounts(s.get("Deployment", "glance"))
	assert.Contains(t, secretText(t, s.get("Secret", backends), "backends.conf"), "[archive]\n")
	assert.Equal(t, "True/AllBackendsProjected", s.condition("Glance", "glance", "BackendsReady"))
	np := policyOf(t, s.w)
	assert.True(t, netpolicy.EgressAllows(np, "198.51.100.7", 9000))
	assert.False(t, netpolicy.EgressAllows(np, "198.51.100.8", 9000), "the policy allows the endpoint, not the port everywhere")

	// The blocks removed: the route and the policies go.
	s.apply(credentials + "\n---\n" + standaloneGlance)
	s.converge()
	for _, r := range []chain.Ref{routeRef, policyRef} {
		_, ok := s.w.Get(r)
		assert.False(t, ok, "%s is deleted with its block", r)
	}
	assert.Equal(t, "http://glance.openstack.svc.cluster.local:9292/", s.get("Glance", "glance")["status"].(map[string]any)["endpoint"])
}

// TestReachControlPlane: a ControlPlane projects gateway and networkPolicy
// onto its Glance, and registers the gateway's URL as the public endpoint
// in Keystone, the internal one staying the Service's.
func TestReachControlPlane(t *testing.T) {
	s := newScenario(t)
	s.apply(credentials + `
---
apiVersion: v1
kind: Secret
metadata: {name: keystone-admin, namespace: openstack}
stringData: {OS_AUTH_URL: "http://keystone.openstack.svc:5000/v3", OS_USERNAME: admin, OS_PASSWORD: admin-secret, OS_PROJECT_NAME: admin}
`)
	s.apply(controlPlane(entry("default", "glance-images", true)) + `
      gateway:
        hostname: images.example.com
        parentRef: {name: edge}
      networkPolicy:
        ingress:
          - namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: openstack}}
            podSelector: {matchLabels: {role: client}}`)
	s.converge()
	g := s.get("Glance", "controlplane-glance")
	spec := g["spec"].(map[string]any)
	assert.Equal(t, map[string]any{"hostname": "images.example.com", "parentRef": map[string]any{"name": "edge"}}, spec["gateway"])
	assert.NotNil(t, spec["networkPolicy"], "networkPolicy is projected")
	var job chain.Object
	for _, name := range s.names("Job") {
		if strings.HasPrefix(name, "controlplane-glance-register-") {
			job = s.get("Job", name)
		}
	}
	require.NotNil(t, job, "the registration Job")
	raw, _ := json.Marshal(job["spec"])
	assert.Contains(t, string(raw), `"--public-url=https://images.example.com/"`)
	assert.Contains(t, string(raw), `"--internal-url=http://controlplane-glance.openstack.svc.cluster.local:9292"`)
	_, ok := s.w.Get(chain.Ref{APIVersion: "networking.k8s.io/v1", Kind: "NetworkPolicy", Namespace: "openstack", Name: "controlplane-glance"})
	assert.True(t, ok, "the projected Glance renders its NetworkPolicy")
}

// policyOf is the glance-api pods' NetworkPolicy as the world holds it.
func policyOf(t *testing.T, w *chain.World) networkingv1.NetworkPolicySpec {
	t.Helper()
	o, ok := w.Get(policyRef)
	require.True(t, ok, "the NetworkPolicy is a child of the Glance")
	return *decodePolicy(o)
}

func decodePolicy(o chain.Object) *networkingv1.NetworkPolicySpec {
	var np struct {
		Spec networkingv1.NetworkPolicySpec `json:"spec"`
	}
	raw, _ := json.Marshal(o)
	_ = json.Unmarshal(raw, &np)
	return &np.Spec
}

// mountedStoresAllowed fails when the Deployment of the Glance "glance"
// mounts a store whose S3 endpoint the NetworkPolicy before this sync,
// before, did not allow.
func mountedStoresAllowed(w *chain.World, before *networkingv1.NetworkPolicySpec) error {
	d, ok := w.Get(chain.Ref{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "openstack", Name: "glance"})
	if !ok {
		return nil
	}
	g, _ := w.Get(chain.Ref{APIVersion: "glance.openstack.c5c3.io/v1alpha1", Kind: "Glance", Namespace: "openstack", Name: "glance"})
	if spec, _ := g["spec"].(map[string]any); spec["networkPolicy"] == nil {
		return nil
	}
	if before == nil {
		return fmt.Errorf("the Deployment mounts stores before there is a NetworkPolicy")
	}
	_, backendsName := mounts(d)
	sec, ok := w.Get(chain.Ref{APIVersion: "v1", Kind: "Secret", Namespace: "openstack", Name: backendsName})
	if !ok {
		return nil // consistentMounts says so
	}
	dec, _ := base64.StdEncoding.DecodeString(sec["data"].(map[string]any)["backends.conf"].(string))
	conf, err := ini.Load(dec)
	if err != nil {
		return err
	}
	for _, sect := range conf.Sections() {
		host := sect.Key("s3_store_host").String()
		if host == "" {
			continue
		}
		u, err := url.Parse(host)
		if err != nil {
			return err
		}
		port := 80
		if u.Scheme == "https" {
			port = 443
		}
		if p := u.Port(); p != "" {
			port, _ = strconv.Atoi(p)
		}
		if !netpolicy.EgressAllows(*before, u.Hostname(), port) {
			return fmt.Errorf("the Deployment mounts store [%s] on %s, which the NetworkPolicy does not allow", sect.Name(), host)
		}
	}
	return nil
}
