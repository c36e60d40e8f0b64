package test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/simulate/chain"
)

// Two CA certificates the scenarios and captured fixtures use; fixed, so a
// regenerated fixture keeps its bytes. The hooks check a bundle's form, not
// its dates.
const (
	storageCA = `-----BEGIN CERTIFICATE-----
MIIBwjCCAWmgAwIBAgIUU86YPze95jsxN3g/S8asEztKjygwCgYIKoZIzj0EAwIw
LzEQMA4GA1UECgwHRXhhbXBsZTEbMBkGA1UEAwwSRXhhbXBsZSBTdG9yYWdlIENB
MB4XDTI2MTIwMTA3MzgwNloXDTM2MTEyODA3MzgwNlowLzEQMA4GA1UECgwHRXhh
bXBsZTEbMBkGA1UEAwwSRXhhbXBsZSBTdG9yYWdlIENBMFkwEwYHKoZIzj0CAQYI
KoZIzj0DAQcDQgAEWztZlSF6TjG6YHfwVWjtGP+0JnOdTrcIYWFygxwMDpNeJMN5
WB9YP1Ws36Sgy2gQ27yQk3HAf6wBOmTlyN4QxaNjMGEwHQYDVR0OBBYEFJi1+s3n
CB/J6SYgghXzdWUYemCqMB8GA1UdIwQYMBaAFJi1+s3nCB/J6SYgghXzdWUYemCq
MA8GA1UdEwEB/wQFMAMBAf8wDgYDVR0PAQH/BAQDAgEGMAoGCCqGSM49BAMCA0cA
MEQCIGcjun87AwWjJHAV2AOQFrMsJvh5kFIUn1guGRe72aQRAiAauV7usz9hG7Za
O+F0apQ8j4PiZJI7YRhTS47O1PL3Kg==
-----END CERTIFICATE-----
`
	archiveCA = `-----BEGIN CERTIFICATE-----
MIIBwzCCAWmgAwIBAgIUGKdoULRzSexu4+168E4Tf0/cVF4wCgYIKoZIzj0EAwIw
LzEQMA4GA1UECgwHRXhhbXBsZTEbMBkGA1UEAwwSRXhhbXBsZSBBcmNoaXZlIENB
MB4XDTI2MTIwMTA3Mzg1NVoXDTM2MTEyODA3Mzg1NVowLzEQMA4GA1UECgwHRXhh
bXBsZTEbMBkGA1UEAwwSRXhhbXBsZSBBcmNoaXZlIENBMFkwEwYHKoZIzj0CAQYI
KoZIzj0DAQcDQgAEyBy+pdL+j6iNLi0eQqvTjzv0A0PKu3vBXHe+4DcvA9RE1m6n
SJq743SqzTNPaHRebudgdJJR97jydkMgzfH9e6NjMGEwHQYDVR0OBBYEFHBjtT/r
jTEVvUVKdjbGmUufX5BNMB8GA1UdIwQYMBaAFHBjtT/rjTEVvUVKdjbGmUufX5BN
MA8GA1UdEwEB/wQFMAMBAf8wDgYDVR0PAQH/BAQDAgEGMAoGCCqGSM49BAMCA0gA
MEUCIQCFSg5Mh6UiYN0CtsNsHvTJrzW9StmPxI4t5nuKv8ZPUAIgam/OME0jUdra
4tGPMfm0484yRq4u8YfWHaLKk36H4Hc=
-----END CERTIFICATE-----
`
)

// caConfigMap is a ConfigMap holding a CA bundle at key ca.crt.
func caConfigMap(name, pem string) string {
	return `
apiVersion: v1
kind: ConfigMap
metadata: {name: ` + name + `, namespace: openstack}
data:
  ca.crt: |
` + indent(pem, "    ")
}

func indent(s, prefix string) string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	return prefix + strings.Join(lines, "\n"+prefix) + "\n"
}

// tlsBackend is a non-default backend on an https:// endpoint whose CA
// bundle is the ConfigMap caName.
func tlsBackend(name, bucket, caName string) string {
	return strings.Replace(strings.Replace(standaloneBackend(name, bucket, "garage-s3-credentials", false),
		"host: http://garage.shared-services.svc.cluster.local:3900", "host: https://rgw-"+name+".storage.svc.cluster.local:443", 1),
		"    region: garage\n", "    region: garage\n    caBundleRef: {name: "+caName+"}\n", 1)
}

// deploymentOf is the Glance's Deployment's pod template parts a CA bundle
// touches.
func caParts(s *scenario) (annotation string, volumes, env []any) {
	d := s.get("Deployment", "glance")
	tpl := d["spec"].(map[string]any)["template"].(map[string]any)
	if ann, ok := tpl["metadata"].(map[string]any)["annotations"].(map[string]any); ok {
		annotation, _ = ann["glance.openstack.c5c3.io/ca-bundles"].(string)
	}
	spec := tpl["spec"].(map[string]any)
	for _, v := range spec["volumes"].([]any) {
		if strings.HasPrefix(v.(map[string]any)["name"].(string), "s3-ca-") {
			volumes = append(volumes, v)
		}
	}
	ctr := spec["containers"].([]any)[0].(map[string]any)
	for _, e := range ctr["env"].([]any) {
		if e.(map[string]any)["name"] == "AWS_CA_BUNDLE" {
			env = append(env, e)
		}
	}
	return annotation, volumes, env
}

// A store with a CA bundle: the Glance mounts it at the file its section
// names, and a new bundle content rolls the pods while the config and the
// backends Secret keep their names.
func TestCABundleMountedAndNewContentRollsThePods(t *testing.T) {
	s := newScenario(t)
	standalone(s)
	s.apply(caConfigMap("storage-ca", storageCA) + "\n---\n" + tlsBackend("archive", "glance-archive", "storage-ca"))
	s.converge()
	assert.Equal(t, "True/AllReady", s.condition("Glance", "glance", "Ready"))
	assert.Equal(t, "True/CABundleAvailable", s.condition("GlanceBackend", "archive", "CABundleReady"))
	assert.Contains(t, conditionMessage(s.get("GlanceBackend", "archive"), "CABundleReady"), `"CN=Example Storage CA,O=Example"`)
	cfg, backends := mounts(s.get("Deployment", "glance"))
	text := secretText(t, s.get("Secret", backends), "backends.conf")
	assert.Contains(t, text, "[archive]\n")
	assert.Contains(t, text, "s3_store_cacert = /etc/glance/s3-ca/archive/ca.crt\n")
	assert.Equal(t, 1, strings.Count(text, "s3_store_cacert"), "stores without a bundle keep the system trust roots")
	ann, volumes, env := caParts(s)
	require.Len(t, volumes, 1)
	assert.Equal(t, map[string]any{"name": "storage-ca", "defaultMode": int64(0o444), "items": []any{map[string]any{"key": "ca.crt", "path": "ca.crt"}}},
		volumes[0].(map[string]any)["configMap"])
	assert.Regexp(t, `^archive=sha256:[0-9a-f]{64}$`, ann)
	assert.Empty(t, env, "2025.2 reads the bundle per store: no process-wide bundle")

	s.apply(caConfigMap("storage-ca", storageCA+archiveCA))
	s.converge()
	ann2, _, _ := caParts(s)
	cfg2, backends2 := mounts(s.get("Deployment", "glance"))
	assert.NotEqual(t, ann, ann2, "the new digest is in the pod template: the pods roll")
	assert.Equal(t, cfg, cfg2)
	assert.Equal(t, backends, backends2)
	assert.Contains(t, conditionMessage(s.get("GlanceBackend", "archive"), "CABundleReady"), "holds 2 certificates")
}

// A missing bundle makes its store wait with its own reason; the siblings
// keep projecting, and the store comes in when the bundle appears.
func TestCABundleMissingSkipsOnlyItsStore(t *testing.T) {
	s := newScenario(t)
	standalone(s)
	s.apply(tlsBackend("archive", "glance-archive", "storage-ca"))
	s.converge()
	assert.Equal(t, "False/WaitingForCABundle", s.condition("GlanceBackend", "archive", "CABundleReady"))
	assert.Equal(t, "False/WaitingForCABundle", s.condition("GlanceBackend", "archive", "StoreRendered"))
	assert.Equal(t, "False/WaitingForBackends", s.condition("Glance", "glance", "BackendsReady"))
	assert.Contains(t, conditionMessage(s.get("Glance", "glance"), "BackendsReady"),
		`"archive" (store archive): its CA bundle is not ready: ConfigMap "storage-ca" not found`)
	_, backends := mounts(s.get("Deployment", "glance"))
	assert.NotContains(t, secretText(t, s.get("Secret", backends), "backends.conf"), "[archive]")
	assert.Contains(t, secretText(t, s.get("Secret", backends), "backends.conf"), "[secondary]")

	s.apply(caConfigMap("storage-ca", storageCA))
	s.converge()
	assert.Equal(t, "True/AllReady", s.condition("Glance", "glance", "Ready"))
}

// Before 2025.1 glance_store has one process-wide bundle: one bundle is
// handed to botocore; two different ones are refused with a reason, and the
// stores without one keep working.
func TestCABundleBeforeStoreCACert(t *testing.T) {
	s := newScenario(t)
	s.apply(credentials + "\n---\n" + strings.ReplaceAll(standaloneGlance, "2025.2", "2024.2") + "\n---\n" +
		standaloneBackend("primary", "glance-images", "garage-s3-credentials", true) + "\n---\n" +
		caConfigMap("storage-ca", storageCA) + "\n---\n" + caConfigMap("archive-ca", archiveCA) + "\n---\n" +
		tlsBackend("internal", "glance-internal", "storage-ca"))
	s.converge()
	assert.Equal(t, "True/AllReady", s.condition("Glance", "glance", "Ready"))
	_, volumes, env := caParts(s)
	assert.Len(t, volumes, 1)
	assert.Equal(t, []any{map[string]any{"name": "AWS_CA_BUNDLE", "value": "/etc/glance/s3-ca/internal/ca.crt"}}, env)

	s.apply(tlsBackend("archive", "glance-archive", "archive-ca"))
	s.converge()
	assert.Equal(t, "False/WaitingForBackends", s.condition("Glance", "glance", "BackendsReady"))
	msg := conditionMessage(s.get("Glance", "glance"), "BackendsReady")
	assert.Contains(t, msg, "glance_store of release 2024.2 has no s3_store_cacert")
	assert.Contains(t, msg, "2 bundles with different content")
	_, backends := mounts(s.get("Deployment", "glance"))
	text := secretText(t, s.get("Secret", backends), "backends.conf")
	assert.Contains(t, text, "[primary]")
	assert.NotContains(t, text, "[internal]")
	assert.NotContains(t, text, "[archive]")
	_, volumes, env = caParts(s)
	assert.Empty(t, volumes)
	assert.Empty(t, env)
	var reasons []string
	for _, b := range s.get("Glance", "glance")["status"].(map[string]any)["backends"].([]any) {
		reason, _ := b.(map[string]any)["reason"].(string)
		reasons = append(reasons, b.(map[string]any)["name"].(string)+"="+reason)
	}
	assert.ElementsMatch(t, []string{"primary=", "archive=CABundleConflict", "internal=CABundleConflict"}, reasons)
}

// beforeStoreCACertWithRetiring is a 2024.2 Glance whose only https:// store,
// "internal" with its CA bundle, was retired: its GlanceBackend is deleted.
func beforeStoreCACertWithRetiring(s *scenario) {
	s.apply(credentials + "\n---\n" + strings.ReplaceAll(standaloneGlance, "2025.2", "2024.2") + "\n---\n" +
		standaloneBackend("primary", "glance-images", "garage-s3-credentials", true) + "\n---\n" +
		caConfigMap("storage-ca", storageCA) + "\n---\n" + caConfigMap("archive-ca", archiveCA) + "\n---\n" +
		tlsBackend("internal", "glance-internal", "storage-ca"))
	s.converge()
	s.w.Delete(chain.Ref{APIVersion: "glance.openstack.c5c3.io/v1alpha1", Kind: "GlanceBackend", Namespace: "openstack", Name: "internal"})
}

// Before 2025.1 a retiring store keeps the process-wide bundle it was read
// with, and it goes before an attached store that needs another bundle: left
// out once, it would be gone for good (it is read only from the running
// config), so the newcomer is skipped until the user drops the retiring one.
func TestRetiringStoreKeepsTheProcessWideCABundle(t *testing.T) {
	s := newScenario(t)
	beforeStoreCACertWithRetiring(s)
	s.converge()
	_, backends := mounts(s.get("Deployment", "glance"))
	assert.Contains(t, secretText(t, s.get("Secret", backends), "backends.conf"), "[internal]\n")
	_, volumes, env := caParts(s)
	assert.Len(t, volumes, 1, "the retiring store's bundle stays mounted")
	internalBundle := []any{map[string]any{"name": "AWS_CA_BUNDLE", "value": "/etc/glance/s3-ca/internal/ca.crt"}}
	assert.Equal(t, internalBundle, env, "botocore keeps verifying the retiring store with its bundle")
	keptInternal := []any{map[string]any{"storeId": "internal", "kept": true,
		"message": "its backend is gone; its section is kept, never as the default, so images in it stay readable, until spec.dropRetiredStores lists it"}}
	assert.Equal(t, keptInternal, s.get("Glance", "glance")["status"].(map[string]any)["retiringStores"])

	// A new https store with a bundle of other content: one process-wide
	// bundle cannot serve both, and the retiring store is the one serving.
	// Converging all the way shows it stays: nothing drops it on a later
	// sync.
	s.apply(tlsBackend("archive", "glance-archive", "archive-ca"))
	s.converge()
	glance := s.get("Glance", "glance")
	assert.Equal(t, keptInternal, glance["status"].(map[string]any)["retiringStores"], "the retiring store stays kept")
	var archive map[string]any
	for _, b := range glance["status"].(map[string]any)["backends"].([]any) {
		if b.(map[string]any)["name"] == "archive" {
			archive = b.(map[string]any)
		}
	}
	require.NotNil(t, archive, "status.backends[] lists archive")
	assert.Equal(t, "CABundleConflict", archive["reason"])
	assert.Contains(t, archive["message"], `its CA bundle conflicts with retiring store "internal": glance_store of release 2024.2 has no s3_store_cacert`)
	assert.Contains(t, archive["message"], `give this store the same bundle, drop retiring store "internal" (spec.dropRetiredStores), or run 2025.1 or later`)
	assert.Equal(t, "False/WaitingForBackends", s.condition("Glance", "glance", "BackendsReady"))
	_, backends = mounts(s.get("Deployment", "glance"))
	text := secretText(t, s.get("Secret", backends), "backends.conf")
	assert.Contains(t, text, "[primary]")
	assert.Contains(t, text, "[internal]\n")
	assert.NotContains(t, text, "[archive]")
	_, volumes, env = caParts(s)
	assert.Len(t, volumes, 1, "only the retiring store's bundle is mounted")
	assert.Equal(t, internalBundle, env)

	// The user drops the retiring store: the newcomer's bundle is the one.
	s.apply(strings.Replace(strings.ReplaceAll(standaloneGlance, "2025.2", "2024.2"), "spec:\n", "spec:\n  dropRetiredStores: [internal]\n", 1))
	s.converge()
	_, backends = mounts(s.get("Deployment", "glance"))
	text = secretText(t, s.get("Secret", backends), "backends.conf")
	assert.NotContains(t, text, "[internal]")
	assert.Contains(t, text, "[archive]\n")
	_, _, env = caParts(s)
	assert.Equal(t, []any{map[string]any{"name": "AWS_CA_BUNDLE", "value": "/etc/glance/s3-ca/archive/ca.crt"}}, env)
	assert.Equal(t, "True/AllReady", s.condition("Glance", "glance", "Ready"))
}

// The captured /sync/glance fixtures of CA bundles (see capture_test.go).
func init() {
	capturedGlanceCases = append(capturedGlanceCases,
		capturedCase{"ca-bundle-mounted", `
A non-default store on an https:// endpoint with its CA bundle in ConfigMap
storage-ca. The Deployment mounts storage-ca key ca.crt read-only at
/etc/glance/s3-ca/archive/ca.crt, the file the store's section names in
s3_store_cacert, and carries the bundle's digest in the pod template's
glance.openstack.c5c3.io/ca-bundles annotation. 2025.2 reads the bundle per
store, so no process-wide AWS_CA_BUNDLE is set.`,
			func(s *scenario) string {
				standalone(s)
				s.apply(caConfigMap("storage-ca", storageCA) + "\n---\n" + tlsBackend("archive", "glance-archive", "storage-ca"))
				s.converge()
				return "glance"
			}},
		capturedCase{"ca-bundle-waiting", `
The store "archive" names a CA bundle whose ConfigMap does not exist: its
backend is CABundleReady=False/WaitingForCABundle and has no store Secret. The
Glance skips it, naming the reason (BackendsReady=False/WaitingForBackends);
primary and secondary keep projecting.`,
			func(s *scenario) string {
				standalone(s)
				s.apply(tlsBackend("archive", "glance-archive", "storage-ca"))
				s.converge()
				return "glance"
			}},
		capturedCase{"ca-bundle-process-wide", `
A Glance of release 2024.2, whose glance_store has no s3_store_cacert, with one
https:// store with a CA bundle beside an http:// default. The bundle is
mounted as for any release and also named in AWS_CA_BUNDLE, botocore's
process-wide bundle, which that glance_store uses for every S3 client.`,
			func(s *scenario) string {
				s.apply(credentials + "\n---\n" + strings.ReplaceAll(standaloneGlance, "2025.2", "2024.2") + "\n---\n" +
					standaloneBackend("primary", "glance-images", "garage-s3-credentials", true) + "\n---\n" +
					caConfigMap("storage-ca", storageCA) + "\n---\n" + tlsBackend("internal", "glance-internal", "storage-ca"))
				s.converge()
				return "glance"
			}},
		capturedCase{"ca-bundle-conflict", `
The same 2024.2 Glance with a second https:// store whose CA bundle differs.
One process-wide bundle cannot serve both: both stores with a bundle are left
out with status.backends[] reason CABundleConflict and a message saying why
and what works (one bundle for all, or 2025.1 or later); the http:// default
keeps projecting and no bundle is mounted or named.`,
			func(s *scenario) string {
				s.apply(credentials + "\n---\n" + strings.ReplaceAll(standaloneGlance, "2025.2", "2024.2") + "\n---\n" +
					standaloneBackend("primary", "glance-images", "garage-s3-credentials", true) + "\n---\n" +
					caConfigMap("storage-ca", storageCA) + "\n---\n" + caConfigMap("archive-ca", archiveCA) + "\n---\n" +
					tlsBackend("internal", "glance-internal", "storage-ca"))
				s.converge()
				s.apply(tlsBackend("archive", "glance-archive", "archive-ca"))
				s.converge()
				return "glance"
			}},
		capturedCase{"ca-bundle-retiring-process-wide", `
The 2024.2 Glance of ca-bundle-process-wide after its GlanceBackend
"internal", the only https:// store, was deleted. The running backends.conf
still holds [internal], so the store is retiring: its section is kept with
the CA bundle the running Deployment mounts for it, and that bundle stays
botocore's process-wide one (AWS_CA_BUNDLE), or glance-api would verify the
store's endpoint without it and fail to read the images in it. The
Deployment comes back unchanged: no roll.`,
			func(s *scenario) string {
				beforeStoreCACertWithRetiring(s)
				s.convergeWithout("glance")
				return "glance"
			}},
		capturedCase{"ca-bundle-retiring-newcomer-skipped", `
The 2024.2 Glance of ca-bundle-retiring-process-wide, its retiring store
"internal" kept with its CA bundle as botocore's process-wide one, after a
new https:// GlanceBackend "archive" with a CA bundle of other content was
added. One bundle cannot verify both, and the retiring store is the one
already serving (left out once, it would be gone for good), so "archive" is
skipped with CABundleConflict, its message naming the retiring store and
the ways out: the same bundle, dropping "internal" through
spec.dropRetiredStores, or 2025.1 or later. "internal" stays in
status.retiringStores, kept, and the Deployment comes back unchanged.`,
			func(s *scenario) string {
				beforeStoreCACertWithRetiring(s)
				s.converge()
				s.apply(tlsBackend("archive", "glance-archive", "archive-ca"))
				s.convergeWithout("glance")
				return "glance"
			}},
	)
}
