package storeconf

import (
	"cmp"
	"strconv"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
)

// Credentials are a store's S3 key pair.
type Credentials struct {
	AccessKeyID     string
	SecretAccessKey string
}

// storeOptions are the options the service renders into a store's section,
// in the order they are written; an empty value is left out. A new S3
// setting is one field in api.S3Options and one line here.
var storeOptions = []struct {
	key string
	// from is the field of s3 it is rendered from ("host" stands for the
	// URL field, s3.host or a ControlPlane entry's s3.endpoint).
	from  string
	value func(s renderInput) string
}{
	{"s3_store_host", "host", func(s renderInput) string { return s.s3.Host }},
	{"s3_store_access_key", "credentialsSecretRef", func(s renderInput) string { return s.creds.AccessKeyID }},
	{"s3_store_secret_key", "credentialsSecretRef", func(s renderInput) string { return s.creds.SecretAccessKey }},
	{"s3_store_bucket", "bucket", func(s renderInput) string { return s.s3.Bucket }},
	{"s3_store_bucket_url_format", "bucketURLFormat", func(s renderInput) string {
		return cmp.Or(s.s3.BucketURLFormat, DefaultBucketURLFormat)
	}},
	{"s3_store_region_name", "region", func(s renderInput) string { return s.s3.Region }},
	{"s3_store_create_bucket_on_put", "createBucketOnPut", func(s renderInput) string { return formatBool(s.s3.CreateBucketOnPut) }},
	{"s3_store_large_object_size", "largeObjectSize", func(s renderInput) string { return formatInt(s.s3.LargeObjectSize) }},
	{"s3_store_large_object_chunk_size", "largeObjectChunkSize", func(s renderInput) string { return formatInt(s.s3.LargeObjectChunkSize) }},
	// The file the Glance mounts the store's CA bundle as. glance_store
	// before 4.9 does not know the option and ignores it; the Glance then
	// hands the bundle to botocore process-wide (see hooks/glance).
	{"s3_store_cacert", "caBundleRef", func(s renderInput) string {
		if s.s3.CABundleRef == nil {
			return ""
		}
		return names.CABundlePath(s.storeID)
	}},
}

// renderInput is what a store's options are rendered from.
type renderInput struct {
	s3      *api.S3Store
	storeID string
	creds   Credentials
}

// OwnedOptionKeys are the store options only the service sets, in the
// order they are written; extraOptions may not set any of them. The CRDs'
// CEL rule that says so is generated from this list (schemas,
// TestOwnedOptionsRule).
var OwnedOptionKeys = func() []string {
	keys := make([]string, len(storeOptions))
	for i, o := range storeOptions {
		keys[i] = o.key
	}
	return keys
}()

// OwnedOptions is OwnedOptionKeys as a set.
var OwnedOptions = func() map[string]bool {
	owned := make(map[string]bool, len(OwnedOptionKeys))
	for _, k := range OwnedOptionKeys {
		owned[k] = true
	}
	return owned
}()

// optionOwner is the field of s3 an owned option is rendered from, with
// urlField for the URL ("" for an option the service does not render).
func optionOwner(key, urlField string) string {
	for _, o := range storeOptions {
		if o.key == key {
			if o.from == "host" {
				return urlField
			}
			return o.from
		}
	}
	return ""
}

// DefaultBucketURLFormat is used when the spec leaves it unset.
const DefaultBucketURLFormat = "path"

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
