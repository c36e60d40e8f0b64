package glancebackend

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/test/testcert"
)

func TestCheckCABundle(t *testing.T) {
	ca, err := testcert.NewCA("Storage CA")
	if err != nil {
		t.Fatal(err)
	}
	other, err := testcert.NewCA("Other CA")
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := ca.Issue("rgw.internal", "rgw.internal")
	if err != nil {
		t.Fatal(err)
	}
	two := "# Storage CA\n" + string(ca.CertPEM) + "# Other CA\n" + string(other.CertPEM)
	digest := func(s string) string {
		sum := sha256.Sum256([]byte(s))
		return "sha256:" + hex.EncodeToString(sum[:])
	}
	configMap := func(data map[string]string) metacontroller.ObjectMap {
		raw, _ := json.Marshal(map[string]any{"metadata": map[string]string{"name": "internal-ca"}, "data": data})
		return metacontroller.ObjectMap{names.ConfigMapsKey: {"internal-ca": raw}}
	}
	secret := func(data map[string]string) metacontroller.ObjectMap {
		enc := map[string]string{}
		for k, v := range data {
			enc[k] = base64.StdEncoding.EncodeToString([]byte(v))
		}
		raw, _ := json.Marshal(map[string]any{"metadata": map[string]string{"name": "rgw-tls"}, "data": enc})
		return metacontroller.ObjectMap{names.SecretsKey: {"rgw-tls": raw}}
	}
	ref := func(kind, name, key string) *api.S3Store {
		return &api.S3Store{Host: "https://rgw.internal", S3Options: api.S3Options{CABundleRef: &api.CABundleRef{Kind: kind, Name: name, Key: key}}}
	}
	type want struct {
		cond   hook.Condition
		digest string
	}
	waiting := func(msg string) want {
		return want{cond: hook.Condition{Type: CondCABundleReady, Reason: ReasonWaitingForCABundle, Message: msg}}
	}
	invalid := func(msg string) want {
		return want{cond: hook.Condition{Type: CondCABundleReady, Reason: ReasonInvalidCABundle, Message: msg}}
	}
	cases := map[string]struct {
		reason  string
		related metacontroller.ObjectMap
		s3      *api.S3Store
		want    want
	}{
		"None": {
			reason: "a store without a CA bundle is ready: the system trust roots verify it",
			s3:     &api.S3Store{Host: "https://s3.example.com"},
			want: want{cond: hook.Condition{Type: CondCABundleReady, Status: true, Reason: ReasonNoCABundle,
				Message: "no CA bundle is named: glance-api verifies the endpoint with the system trust roots"}},
		},
		"ConfigMapDefaults": {
			reason:  "a ConfigMap named alone is read at key ca.crt; the message names the subjects, the digest is of the bytes",
			related: configMap(map[string]string{"ca.crt": two}),
			s3:      ref("", "internal-ca", ""),
			want: want{digest: digest(two), cond: hook.Condition{Type: CondCABundleReady, Status: true, Reason: ReasonCABundleAvailable,
				Message: `ConfigMap "internal-ca" key ca.crt holds 2 certificates: "CN=Storage CA", "CN=Other CA"`}},
		},
		"Secret": {
			reason:  "a Secret's key is read from its base64 data",
			related: secret(map[string]string{"ca.crt": string(ca.CertPEM), "tls.key": string(leaf.KeyPEM)}),
			s3:      ref("Secret", "rgw-tls", "ca.crt"),
			want: want{digest: digest(string(ca.CertPEM)), cond: hook.Condition{Type: CondCABundleReady, Status: true, Reason: ReasonCABundleAvailable,
				Message: `Secret "rgw-tls" key ca.crt holds 1 certificate: "CN=Storage CA"`}},
		},
		"Absent": {
			reason: "a bundle that does not exist yet is waited for",
			s3:     ref("", "internal-ca", ""),
			want:   waiting(`ConfigMap "internal-ca" not found`),
		},
		"KeyMissing": {
			reason:  "a missing key is waited for, naming it",
			related: configMap(map[string]string{"trust-bundle.pem": two}),
			s3:      ref("ConfigMap", "internal-ca", "ca.crt"),
			want:    waiting(`ConfigMap "internal-ca" has no ca.crt key`),
		},
		"Empty": {
			reason:  "an empty key is waited for like a missing one",
			related: configMap(map[string]string{"ca.crt": ""}),
			s3:      ref("", "internal-ca", ""),
			want:    waiting(`ConfigMap "internal-ca" key ca.crt is empty`),
		},
		"NotPEM": {
			reason:  "a key without a certificate is no CA bundle",
			related: configMap(map[string]string{"ca.crt": "not a certificate"}),
			s3:      ref("", "internal-ca", ""),
			want:    invalid(`ConfigMap "internal-ca" key ca.crt holds no PEM certificate (-----BEGIN CERTIFICATE-----)`),
		},
		"PrivateKey": {
			reason:  "a private key would be mounted into every pod: refused, never its content in the message",
			related: secret(map[string]string{"tls.crt": string(leaf.CertPEM) + string(leaf.KeyPEM)}),
			s3:      ref("Secret", "rgw-tls", "tls.crt"),
			want: invalid(`Secret "rgw-tls" key tls.crt holds a private key (PEM block 2): a CA bundle holds certificates only, ` +
				"and it is mounted into every glance-api pod"),
		},
		"BrokenCertificate": {
			reason:  "a CERTIFICATE block that does not parse",
			related: configMap(map[string]string{"ca.crt": "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"}),
			s3:      ref("", "internal-ca", ""),
			want:    invalid(`ConfigMap "internal-ca" key ca.crt holds a PEM block 1 that is not a valid X.509 certificate`),
		},
		"OtherBlock": {
			reason:  "a block of another type",
			related: configMap(map[string]string{"ca.crt": string(ca.CertPEM) + "-----BEGIN X509 CRL-----\nAAAA\n-----END X509 CRL-----\n"}),
			s3:      ref("", "internal-ca", ""),
			want:    invalid(`ConfigMap "internal-ca" key ca.crt holds a PEM block 2 of type "X509 CRL", not CERTIFICATE`),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cond, digest, err := checkCABundle(tc.related, tc.s3)
			if err != nil {
				t.Fatalf("%s\ncheckCABundle(...): %v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.want, want{cond: cond, digest: digest}, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\ncheckCABundle(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// A bundle of the public roots holds over a hundred certificates: the
// message names the first few and counts the rest.
func TestCheckCABundleNamesAFewSubjects(t *testing.T) {
	var b strings.Builder
	for _, cn := range []string{"A", "B", "C", "D", "E"} {
		ca, err := testcert.NewCA(cn)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(ca.CertPEM)
	}
	raw, _ := json.Marshal(map[string]any{"data": map[string]string{"ca.crt": b.String()}})
	cond, _, err := checkCABundle(metacontroller.ObjectMap{names.ConfigMapsKey: {"bundle": raw}},
		&api.S3Store{S3Options: api.S3Options{CABundleRef: &api.CABundleRef{Name: "bundle"}}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `ConfigMap "bundle" key ca.crt holds 5 certificates: "CN=A", "CN=B", "CN=C" and 2 more`; cond.Message != want {
		t.Errorf("message = %q, want %q", cond.Message, want)
	}
}

func TestCustomizeNamesTheCABundle(t *testing.T) {
	cases := map[string]struct {
		reason string
		ca     *api.CABundleRef
		want   []metacontroller.RelatedResource
	}{
		"ConfigMap": {
			reason: "a ConfigMap bundle is asked for by name beside the credentials Secret",
			ca:     &api.CABundleRef{Name: "internal-ca"},
			want: []metacontroller.RelatedResource{
				{APIVersion: "v1", Resource: "secrets", Namespace: "openstack", Names: []string{"creds"}},
				{APIVersion: "v1", Resource: "configmaps", Namespace: "openstack", Names: []string{"internal-ca"}},
			},
		},
		"Secret": {
			reason: "a Secret bundle is asked for with the credentials Secret, names sorted",
			ca:     &api.CABundleRef{Kind: "Secret", Name: "a-tls"},
			want:   []metacontroller.RelatedResource{{APIVersion: "v1", Resource: "secrets", Namespace: "openstack", Names: []string{"a-tls", "creds"}}},
		},
		"SameSecret": {
			reason: "one Secret holding both is asked for once",
			ca:     &api.CABundleRef{Kind: "Secret", Name: "creds"},
			want:   []metacontroller.RelatedResource{{APIVersion: "v1", Resource: "secrets", Namespace: "openstack", Names: []string{"creds"}}},
		},
		"Invalid": {
			reason: "a reference that cannot name an object is not asked for",
			ca:     &api.CABundleRef{Name: "Not/A_Name"},
			want:   []metacontroller.RelatedResource{{APIVersion: "v1", Resource: "secrets", Namespace: "openstack", Names: []string{"creds"}}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s3 := &api.S3Store{Host: "https://rgw.internal", S3Options: api.S3Options{
				CredentialsSecretRef: api.LocalObjectReference{Name: "creds"}, CABundleRef: tc.ca}}
			if diff := cmp.Diff(tc.want, namedObjects("openstack", s3)); diff != "" {
				t.Errorf("%s\nnamedObjects(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
