package storeconf

import (
	"cmp"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
)

// storeOptions are the options the service renders into a store's section,
// in the order they are written; an empty value is left out. A new S3
// setting is one field in api.S3Options and one line here.
var storeOptions = []struct {
	key   string
	value func(s3 *api.S3Store, creds Credentials) string
}{
	{"s3_store_host", func(s3 *api.S3Store, _ Credentials) string { return s3.Host }},
	{"s3_store_access_key", func(_ *api.S3Store, c Credentials) string { return c.AccessKeyID }},
	{"s3_store_secret_key", func(_ *api.S3Store, c Credentials) string { return c.SecretAccessKey }},
	{"s3_store_bucket", func(s3 *api.S3Store, _ Credentials) string { return s3.Bucket }},
	{"s3_store_bucket_url_format", func(s3 *api.S3Store, _ Credentials) string {
		return cmp.Or(s3.BucketURLFormat, DefaultBucketURLFormat)
	}},
	{"s3_store_region_name", func(s3 *api.S3Store, _ Credentials) string { return s3.Region }},
	{"s3_store_create_bucket_on_put", func(s3 *api.S3Store, _ Credentials) string { return formatBool(s3.CreateBucketOnPut) }},
	{"s3_store_large_object_size", func(s3 *api.S3Store, _ Credentials) string { return formatInt(s3.LargeObjectSize) }},
	{"s3_store_large_object_chunk_size", func(s3 *api.S3Store, _ Credentials) string { return formatInt(s3.LargeObjectChunkSize) }},
}

// OwnedOptions are the store options only the service sets; extraOptions
// may not set any of them.
var OwnedOptions = func() map[string]bool {
	owned := make(map[string]bool, len(storeOptions))
	for _, o := range storeOptions {
		owned[o.key] = true
	}
	return owned
}()

// DefaultBucketURLFormat is used when the spec leaves it unset.
const DefaultBucketURLFormat = "path"

// Credentials are a store's S3 key pair.
type Credentials struct {
	AccessKeyID     string
	SecretAccessKey string
}

// SpecProblems lists what in a backend spec cannot be rendered safely,
// without quoting any value. Empty means the section can be rendered.
func SpecProblems(spec api.GlanceBackendSpec, storeID string) []string {
	var problems []string
	if err := ValidateStoreID(storeID); err != nil {
		problems = append(problems, err.Error())
	}
	if spec.Type != api.BackendTypeS3 {
		return append(problems, fmt.Sprintf("spec.type must be %s", api.BackendTypeS3))
	}
	s3 := spec.S3
	if s3 == nil {
		return append(problems, "spec.s3 is required when type is S3")
	}
	check := func(field, v string, required bool) {
		if v == "" {
			if required {
				problems = append(problems, field+" is required")
			}
			return
		}
		if p := ValueProblem(v); p != "" {
			problems = append(problems, field+" "+p)
		}
	}
	check("spec.s3.host", s3.Host, true)
	if s3.Host != "" && !strings.HasPrefix(s3.Host, "http://") && !strings.HasPrefix(s3.Host, "https://") {
		problems = append(problems, "spec.s3.host must be an http:// or https:// URL")
	}
	check("spec.s3.bucket", s3.Bucket, true)
	check("spec.s3.region", s3.Region, false)
	if f := s3.BucketURLFormat; f != "" && f != "path" && f != "virtual" {
		problems = append(problems, "spec.s3.bucketURLFormat must be path or virtual")
	}
	check("spec.s3.credentialsSecretRef.name", s3.CredentialsSecretRef.Name, true)
	for _, n := range []struct {
		field string
		v     *int64
	}{{"spec.s3.largeObjectSize", s3.LargeObjectSize}, {"spec.s3.largeObjectChunkSize", s3.LargeObjectChunkSize}} {
		if n.v != nil && *n.v < 1 {
			problems = append(problems, n.field+" must be at least 1")
		}
	}
	keys := make([]string, 0, len(spec.ExtraOptions))
	for k := range spec.ExtraOptions {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if OwnedOptions[k] {
			problems = append(problems, fmt.Sprintf("spec.extraOptions may not set %s: the service renders it", k))
			continue
		}
		if err := ValidateKey(k); err != nil {
			problems = append(problems, "spec.extraOptions: "+err.Error())
			continue
		}
		if p := ValueProblem(spec.ExtraOptions[k]); p != "" {
			problems = append(problems, fmt.Sprintf("spec.extraOptions[%s] %s", k, p))
		}
	}
	return problems
}

// RenderSection renders a store's [<storeID>] section. Callers check
// SpecProblems and the credentials first; RenderSection still refuses
// anything unsafe.
func RenderSection(spec api.GlanceBackendSpec, storeID string, creds Credentials) (string, error) {
	if problems := SpecProblems(spec, storeID); len(problems) > 0 {
		return "", fmt.Errorf("%s", strings.Join(problems, "; "))
	}
	opts := make([]Option, 0, len(storeOptions)+len(spec.ExtraOptions))
	for _, o := range storeOptions {
		if v := o.value(spec.S3, creds); v != "" {
			opts = append(opts, Option{o.key, v})
		}
	}
	opts = append(opts, SortedOptions(spec.ExtraOptions)...)
	return Write(Section{Name: storeID, Options: opts})
}

func formatBool(b *bool) string {
	if b == nil {
		return ""
	}
	return strconv.FormatBool(*b)
}

func formatInt(n *int64) string {
	if n == nil {
		return ""
	}
	return strconv.FormatInt(*n, 10)
}
