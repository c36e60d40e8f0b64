package admission

import (
	"fmt"
	"net/url"
	"sort"

	"github.com/c5c3/glance-hooks/hooks/storeconf"
)

// Messages here name fields and say what is wrong; they never repeat a value
// that could be a credential (URLs, option values).

// checkURL says what is wrong with an http(s) URL field, or "" when it is fine.
// A URL carrying user:password@ is refused: credentials live in Secrets.
func checkURL(field, v string) string {
	if p := storeconf.ValueProblem(v); p != "" {
		return fmt.Sprintf("%s %s", field, p)
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Sprintf("%s must be an http:// or https:// URL with a host", field)
	}
	if u.User != nil {
		return fmt.Sprintf("%s must not carry credentials (user:password@); they belong in a Secret", field)
	}
	return ""
}

// checkValue says what is wrong with a value that is rendered into the config.
func checkValue(field, v string) string {
	if p := storeconf.ValueProblem(v); p != "" {
		return fmt.Sprintf("%s %s", field, p)
	}
	return ""
}

// s3Fields are the S3 settings shared by a ControlPlane entry and a GlanceBackend.
type s3Fields struct {
	hostField, host        string
	bucket, region, format string
	largeSize, largeChunk  *int64
}

// checkS3Values checks the S3 values that are set; whether required ones are
// present is the caller's business.
func checkS3Values(at string, s s3Fields) []string {
	var out []string
	add := func(p string) {
		if p != "" {
			out = append(out, p)
		}
	}
	if s.host != "" {
		add(checkURL(at+"."+s.hostField, s.host))
	}
	if s.bucket != "" {
		add(checkValue(at+".bucket", s.bucket))
	}
	if s.region != "" {
		add(checkValue(at+".region", s.region))
	}
	switch s.format {
	case "", "path", "virtual":
	default:
		out = append(out, at+".bucketURLFormat must be path or virtual")
	}
	if s.largeSize != nil && *s.largeSize <= 0 {
		out = append(out, at+".largeObjectSize must be a positive number of MiB")
	}
	if s.largeChunk != nil && *s.largeChunk <= 0 {
		out = append(out, at+".largeObjectChunkSize must be a positive number of MiB")
	}
	return out
}

// credentialOptions are the store options that hold the S3 key pair; they
// come from the credentials Secret only, never from the spec.
var credentialOptions = map[string]bool{"s3_store_access_key": true, "s3_store_secret_key": true}

// checkExtraOptions checks option names and values, in key order.
func checkExtraOptions(at string, opts map[string]string) []string {
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []string
	for _, k := range keys {
		if err := storeconf.ValidateKey(k); err != nil {
			out = append(out, fmt.Sprintf("%s: %v", at, err))
			continue
		}
		if credentialOptions[k] {
			out = append(out, fmt.Sprintf("%s[%s]: the S3 keys come from s3.credentialsSecretRef only; credentials never go in the spec", at, k))
			continue
		}
		if p := storeconf.ValueProblem(opts[k]); p != "" {
			out = append(out, fmt.Sprintf("%s[%s]: the value %s", at, k, p))
		}
	}
	return out
}
