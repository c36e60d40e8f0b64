package storeconf

import (
	"cmp"
	"errors"
	"strconv"

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

// RenderSection renders a store's [<storeID>] section. Callers check
// BackendProblems and the credentials first; RenderSection still refuses
// anything unsafe.
func RenderSection(spec api.GlanceBackendSpec, storeID string, creds Credentials) (string, error) {
	if problems := BackendProblems(spec, storeID); len(problems) > 0 {
		return "", errors.New(problems.String())
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
