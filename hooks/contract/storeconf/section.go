package storeconf

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
)

// S3 options the service renders; extraOptions may not set any of them.
const (
	OptHost                 = "s3_store_host"
	OptAccessKey            = "s3_store_access_key"
	OptSecretKey            = "s3_store_secret_key"
	OptBucket               = "s3_store_bucket"
	OptBucketURLFormat      = "s3_store_bucket_url_format"
	OptRegionName           = "s3_store_region_name"
	OptCreateBucketOnPut    = "s3_store_create_bucket_on_put"
	OptLargeObjectSize      = "s3_store_large_object_size"
	OptLargeObjectChunkSize = "s3_store_large_object_chunk_size"
)

// OwnedOptions are the store options only the service sets.
var OwnedOptions = map[string]bool{
	OptHost: true, OptAccessKey: true, OptSecretKey: true, OptBucket: true, OptBucketURLFormat: true,
	OptRegionName: true, OptCreateBucketOnPut: true, OptLargeObjectSize: true, OptLargeObjectChunkSize: true,
}

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
	s3 := spec.S3
	format := s3.BucketURLFormat
	if format == "" {
		format = DefaultBucketURLFormat
	}
	opts := []Option{
		{OptHost, s3.Host},
		{OptAccessKey, creds.AccessKeyID},
		{OptSecretKey, creds.SecretAccessKey},
		{OptBucket, s3.Bucket},
		{OptBucketURLFormat, format},
	}
	if s3.Region != "" {
		opts = append(opts, Option{OptRegionName, s3.Region})
	}
	if s3.CreateBucketOnPut != nil {
		opts = append(opts, Option{OptCreateBucketOnPut, strconv.FormatBool(*s3.CreateBucketOnPut)})
	}
	if s3.LargeObjectSize != nil {
		opts = append(opts, Option{OptLargeObjectSize, strconv.FormatInt(*s3.LargeObjectSize, 10)})
	}
	if s3.LargeObjectChunkSize != nil {
		opts = append(opts, Option{OptLargeObjectChunkSize, strconv.FormatInt(*s3.LargeObjectChunkSize, 10)})
	}
	opts = append(opts, SortedOptions(spec.ExtraOptions)...)
	return Write(Section{Name: storeID, Options: opts})
}
