package storeconf

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
)

func TestBackendProblems(t *testing.T) {
	type args struct {
		spec    func(*api.GlanceBackendSpec)
		storeID string
	}
	cases := map[string]struct {
		reason string
		args   args
		want   []string
	}{
		"Renderable": {
			reason: "a complete S3 spec with a usable store id has nothing to say",
			args:   args{storeID: "archive"},
		},
		"ReservedStoreID": {
			reason: "the store id is the section name; its problem names the id, not a field",
			args:   args{storeID: "os_glance_staging_store"},
			want:   []string{`store id "os_glance_staging_store" uses the reserved os_glance_ store-section prefix: glance-api keeps os_glance_* stores for itself`},
		},
		"WrongType": {
			reason: "only S3 stores can be rendered; nothing else is checked then",
			args:   args{storeID: "a", spec: func(s *api.GlanceBackendSpec) { s.Type, s.S3.Bucket = "Swift", "" }},
			want:   []string{`spec.type: Unsupported value: supported values: "S3"`},
		},
		"NoS3": {
			reason: "an S3 store needs its S3 settings",
			args:   args{storeID: "a", spec: func(s *api.GlanceBackendSpec) { s.S3 = nil }},
			want:   []string{"spec.s3: exactly one backend block matching spec.type must be set (type S3 requires spec.s3)"},
		},
		"S3Fields": {
			reason: "every S3 field says what is wrong with it, in field order, without its value",
			args: args{storeID: "a", spec: func(s *api.GlanceBackendSpec) {
				size := int64(0)
				s.S3.Host, s.S3.Bucket, s.S3.Region = "ftp://k:SECRET@x", "", "r\n"
				s.S3.BucketURLFormat, s.S3.CredentialsSecretRef.Name, s.S3.LargeObjectChunkSize = "dns", "", &size
			}},
			want: []string{
				"spec.s3.host: scheme must be http or https",
				"spec.s3.host: must not carry credentials (user:password@); they come from s3.credentialsSecretRef",
				"spec.s3.bucket is required",
				"spec.s3.region contains a newline",
				"spec.s3.bucketURLFormat must be path or virtual",
				"spec.s3.credentialsSecretRef.name is required",
				"spec.s3.largeObjectChunkSize must be at least 1",
			},
		},
		"CABundleRef": {
			reason: "a CA bundle reference names a kind the service reads, an object and a data key, and needs an https:// endpoint",
			args: args{storeID: "a", spec: func(s *api.GlanceBackendSpec) {
				s.S3.CABundleRef = &api.CABundleRef{Kind: "Certificate", Name: "Internal_CA", Key: "ca/crt"}
			}},
			want: []string{
				"spec.s3.caBundleRef.kind must be ConfigMap or Secret",
				"spec.s3.caBundleRef.name must be the name of a Certificate: lowercase letters, digits, '-' and '.'",
				"spec.s3.caBundleRef.key must be a data key: letters, digits, '-', '_' or '.'",
				"spec.s3.caBundleRef needs an https:// s3.host: a CA bundle verifies the endpoint's TLS certificate, and an http:// endpoint has none",
			},
		},
		"CABundleRefHTTPS": {
			reason: "with an https:// host, a ConfigMap named by name alone is complete (kind and key default)",
			args: args{storeID: "a", spec: func(s *api.GlanceBackendSpec) {
				s.S3.Host = "https://rgw.internal"
				s.S3.CABundleRef = &api.CABundleRef{Name: "internal-ca"}
			}},
		},
		"CABundleRefNameRequired": {
			reason: "a reference without a name names nothing",
			args: args{storeID: "a", spec: func(s *api.GlanceBackendSpec) {
				s.S3.Host = "https://rgw.internal"
				s.S3.CABundleRef = &api.CABundleRef{}
			}},
			want: []string{"spec.s3.caBundleRef.name is required"},
		},
		"ExtraOptionsReferenceKeys": {
			reason: "the reference takes letters, digits and '_' in any case and order; oslo.config matches names case-sensitively, so an upper-case name renders one inert line and stands in for no owned option",
			args: args{storeID: "a", spec: func(s *api.GlanceBackendSpec) {
				s.ExtraOptions = map[string]string{"S3_STORE_HOST": "x", "9lives": "v", strings.Repeat("k", MaxOptionKeyLength): "v"}
			}},
		},
		"ExtraOptionsKeyTooLong": {
			reason: "the reference's bound on a key",
			args: args{storeID: "a", spec: func(s *api.GlanceBackendSpec) {
				s.ExtraOptions = map[string]string{strings.Repeat("k", MaxOptionKeyLength+1): "v"}
			}},
			want: []string{"spec.extraOptions: each extraOptions key must be <=256 characters and each value <=1024 characters"},
		},
		"ExtraOptionsValueTooLong": {
			reason: "the reference's bound on a value, in characters (code points, as its CEL counts), not bytes",
			args: args{storeID: "a", spec: func(s *api.GlanceBackendSpec) {
				s.ExtraOptions = map[string]string{"a": strings.Repeat("v", MaxOptionValueLength+1), "b": strings.Repeat("é", MaxOptionValueLength)}
			}},
			want: []string{"spec.extraOptions: each extraOptions key must be <=256 characters and each value <=1024 characters"},
		},
		"ExtraOptionsTooMany": {
			reason: "the reference's bound on the options' count",
			args: args{storeID: "a", spec: func(s *api.GlanceBackendSpec) {
				s.ExtraOptions = map[string]string{}
				for i := range MaxOptions + 1 {
					s.ExtraOptions[fmt.Sprintf("s3_store_option_%d", i)] = "1"
				}
			}},
			want: []string{"spec.extraOptions: Too many: 33: must have at most 32 items"},
		},
		"ExtraOptions": {
			reason: "extraOptions may neither set an option the service renders nor break the file; keys in order",
			args: args{storeID: "a", spec: func(s *api.GlanceBackendSpec) {
				s.ExtraOptions = map[string]string{"s3_store_bucket": "x", "bad key": "v", "ok": "line\nbreak", "s3_store_cacert": "/ca.pem", "": "v", "tab": "a\tb"}
			}},
			want: []string{
				"spec.extraOptions: option name must not be empty",
				`spec.extraOptions[bad key]: option name must match ^[A-Za-z0-9_]+$ (letters, digits, and underscore)`,
				"spec.extraOptions[ok]: value must not contain newline or carriage-return characters",
				`spec.extraOptions[s3_store_bucket]: option "s3_store_bucket" is owned by spec.s3.bucket and must not be set via extraOptions`,
				`spec.extraOptions[s3_store_cacert]: option "s3_store_cacert" is owned by spec.s3.caBundleRef and must not be set via extraOptions`,
				"spec.extraOptions[tab] contains a tab",
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := spec()
			if tc.args.spec != nil {
				tc.args.spec(&s)
			}
			var got []string
			for _, p := range BackendProblems(s, tc.args.storeID) {
				got = append(got, p.String())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nBackendProblems(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// The S3 URL field is named where the store is declared; the checks are the
// same.
func TestSpecProblemsNamesTheURLField(t *testing.T) {
	s := spec()
	s.S3.Host = "garage:3900"
	for field, want := range map[string]string{
		HostField:     "s3.host: scheme must be http or https",
		EndpointField: "s3.endpoint: scheme must be http or https",
	} {
		got := SpecProblems(s, field).String()
		if got != want {
			t.Errorf("SpecProblems(..., %q) = %q, want %q", field, got, want)
		}
	}
}

// isDNS1035Label says a name is a DNS-1035 label exactly when
// validation.IsDNS1035Label finds nothing wrong with it.
func FuzzIsDNS1035Label(f *testing.F) {
	for _, name := range []string{"glance", "a", "a-1", "1a", "-a", "a-", "A", "a.b", "a_b", "", strings.Repeat("a", 63), strings.Repeat("a", 64), "é", "a\n"} {
		f.Add(name)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if got, want := isDNS1035Label(name), len(validation.IsDNS1035Label(name)) == 0; got != want {
			t.Fatalf("isDNS1035Label(%q) = %v, validation says %v", name, got, want)
		}
	})
}
