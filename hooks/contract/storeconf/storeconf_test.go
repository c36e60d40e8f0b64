package storeconf

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/ini.v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/contenthash"
)

func TestValidateStoreID(t *testing.T) {
	// The longest: a GlanceBackend's name whose store Secret <name>-store is
	// still an object name (253).
	ok := []string{"default", "secondary", "garage-a", "s3.archive", "a", "store_2", strings.Repeat("a.", 123) + "a"}
	for _, id := range ok {
		assert.NoError(t, ValidateStoreID(id), id)
	}
	refused := map[string]string{
		"os_glance_staging_store": "reserved os_glance_ store-section prefix",
		"os-glance-x":             "reserved os-glance- store-section prefix",
		"OS_GLANCE_X":             "reserved os_glance_ store-section prefix",
		"glance_store":            "collides with a reserved store section",
		"DEFAULT":                 "collides with a reserved store section",
		"keystone_authtoken":      "collides with a reserved store section",
		"paste_deploy":            "collides with a reserved store section",
		"Upper":                   "is not valid",
		"":                        "is not valid",
		"-lead":                   "is not valid",
		"a,b":                     "is not valid",
		"a:b":                     "is not valid",
		"a]b":                     "is not valid",
		strings.Repeat("a", 248):  "is not valid",
	}
	for id, want := range refused {
		err := ValidateStoreID(id)
		if assert.Error(t, err, id) {
			assert.Contains(t, err.Error(), want, id)
			assert.Contains(t, err.Error(), `"`+id+`"`, "the message names the id")
		}
	}
}

func TestWriteEscapesAndRefuses(t *testing.T) {
	text, err := Write(Section{Name: "s", Options: []Option{{"k", "a$b"}, {"k2", "x"}}})
	require.NoError(t, err)
	assert.Equal(t, "[s]\nk = a$$b\nk2 = x\n", text)

	_, err = Write(Section{Name: "s", Options: []Option{{"k", "x\n[glance_store]"}}})
	assert.ErrorContains(t, err, "newline")
	_, err = Write(Section{Name: "s]", Options: nil})
	assert.Error(t, err)
	_, err = Write(Section{Name: "s", Options: []Option{{"K-Bad", "x"}}})
	assert.ErrorContains(t, err, "option name")
}

func spec() api.GlanceBackendSpec {
	yes := true
	size := int64(100)
	return api.GlanceBackendSpec{
		GlanceRef: api.LocalObjectReference{Name: "glance"},
		Type:      api.BackendTypeS3,
		S3: &api.S3Store{Host: "http://s3:9000", S3Options: api.S3Options{Bucket: "b", Region: "r",
			CredentialsSecretRef: api.LocalObjectReference{Name: "c"}, CreateBucketOnPut: &yes, LargeObjectSize: &size}},
		ExtraOptions: map[string]string{"store_description": "Archive", "s3_store_thread_pools": "4"},
	}
}

// TestRenderSectionParsesBack renders a section and reads it back with an
// independent INI parser: exactly one section, every value as given.
func TestRenderSectionParsesBack(t *testing.T) {
	text, err := RenderSection(spec(), "archive", Credentials{AccessKeyID: "AK", SecretAccessKey: "se$cr%et"})
	require.NoError(t, err)
	f, err := ini.Load([]byte(text))
	require.NoError(t, err)
	names := f.SectionStrings()
	assert.Equal(t, []string{ini.DefaultSection, "archive"}, names)
	sec := f.Section("archive")
	assert.Equal(t, "http://s3:9000", sec.Key("s3_store_host").String())
	assert.Equal(t, "se$$cr%et", sec.Key("s3_store_secret_key").String(), "'$' is doubled for oslo.config")
	assert.Equal(t, "path", sec.Key("s3_store_bucket_url_format").String())
	assert.Equal(t, "r", sec.Key("s3_store_region_name").String())
	assert.Equal(t, "true", sec.Key("s3_store_create_bucket_on_put").String())
	assert.Equal(t, "100", sec.Key("s3_store_large_object_size").String())
	assert.False(t, sec.HasKey("s3_store_large_object_chunk_size"), "unset options are omitted")
	assert.Equal(t, "Archive", sec.Key("store_description").String())
	assert.False(t, sec.HasKey("s3_store_cacert"), "a store without a CA bundle keeps the system trust roots")
	assert.True(t, strings.HasPrefix(text, "[archive]\ns3_store_host = "), "owned options come first, in a fixed order")
}

// A store with a CA bundle names the file its Glance mounts the bundle as,
// derived from the store id, whatever the bundle's kind, name or key.
func TestRenderSectionNamesTheCABundleFile(t *testing.T) {
	s := spec()
	s.S3.Host = "https://rgw.internal:443"
	s.S3.CABundleRef = &api.CABundleRef{Kind: api.CABundleKindSecret, Name: "rgw-tls", Key: "tls-ca.pem"}
	text, err := RenderSection(s, "archive", Credentials{AccessKeyID: "AK", SecretAccessKey: "SK"})
	require.NoError(t, err)
	f, err := ini.Load([]byte(text))
	require.NoError(t, err)
	assert.Equal(t, "/etc/glance/s3-ca/archive/ca.crt", f.Section("archive").Key("s3_store_cacert").String())
	assert.NotEqual(t, SpecHash(spec(), "archive"), SpecHash(s, "archive"), "the reference is part of the spec the section was rendered from")
}

func TestSpecHashIgnoresIsDefault(t *testing.T) {
	a := spec()
	b := spec()
	b.IsDefault = true
	assert.Equal(t, SpecHash(a, "x"), SpecHash(b, "x"))
	b.S3.Bucket = "other"
	assert.NotEqual(t, SpecHash(a, "x"), SpecHash(b, "x"))
	assert.NotEqual(t, SpecHash(a, "x"), SpecHash(a, "y"))
}

func TestHasSectionHeader(t *testing.T) {
	cases := map[string]struct {
		reason string
		text   string
		name   string
		want   bool
	}{
		"First":        {"a header on the first line counts", "[a]\nk = [b]\n[c]\r\n", "a", true},
		"CarriageRet":  {"carriage returns before the line break are no part of the line", "[a]\nk = [b]\n[c]\r\n", "c", true},
		"InValue":      {"only a header on a line of its own counts", "[a]\nk = [b]\n[c]\r\n", "b", false},
		"Last":         {"the last line needs no line break", "k = v\n[a]", "a", true},
		"ManyCR":       {"any number of carriage returns", "[a]\r\r\r", "a", true},
		"Prefix":       {"a longer header is another section", "[ab]\n", "a", false},
		"Indented":     {"a blank before the header makes it no header line", " [a]\n", "a", false},
		"Trailing":     {"text after the header makes it no header line", "[a] x\n", "a", false},
		"LaterMatch":   {"a header that first appears inside a line is still found on its own line", "x[a]\n[a]\n", "a", true},
		"CRInside":     {"a carriage return only counts at the end of the line", "[a]\rx\n", "a", false},
		"Empty":        {"an empty text has no sections", "", "a", false},
		"SubstringEnd": {"the header must close the line", "[a]]\n", "a", false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, tc.want, HasSectionHeader([]byte(tc.text), tc.name), tc.reason)
			assert.Equal(t, hasHeaderLine(tc.text, tc.name), tc.want, "the definition by lines agrees")
		})
	}
}

// hasHeaderLine is HasSectionHeader's definition: some line, carriage
// returns trimmed from its end, is the header.
func hasHeaderLine(text, name string) bool {
	for _, line := range strings.Split(text, "\n") {
		if strings.TrimRight(line, "\r") == "["+name+"]" {
			return true
		}
	}
	return false
}

func FuzzHasSectionHeader(f *testing.F) {
	f.Add("[a]\nk = [b]\n[c]\r\n", "c")
	f.Add("x[a]\r\n[a]", "a")
	f.Fuzz(func(t *testing.T, text, name string) {
		if HasSectionHeader([]byte(text), name) != hasHeaderLine(text, name) {
			t.Fatalf("HasSectionHeader(%q, %q) disagrees with the line definition", text, name)
		}
	})
}

// FuzzShapes holds the hand-written checks to the patterns they stand for.
func FuzzShapes(f *testing.F) {
	optionKey := regexp.MustCompile(`^[A-Za-z0-9_]+$`)
	storeID := regexp.MustCompile(`^[a-z0-9]([a-z0-9._-]*[a-z0-9])?$`)
	for _, s := range []string{"", "a", "a_1", "1a", "A", "a-b", "store-0001", "a.", ".a", "a..b", "a\n", "é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if isOptionKey(s) != optionKey.MatchString(s) {
			t.Fatalf("isOptionKey(%q) = %v", s, isOptionKey(s))
		}
		if isStoreIDShape(s) != storeID.MatchString(s) {
			t.Fatalf("isStoreIDShape(%q) = %v", s, isStoreIDShape(s))
		}
	})
}

// SpecHash hashes what json.Marshal writes of the spec's parts: the
// encoder it uses adds a newline, which must not reach the hash, and
// escapes as Marshal does.
func TestSpecHashIsOfMarshal(t *testing.T) {
	size := int64(5)
	cases := map[string]struct {
		reason string
		spec   api.GlanceBackendSpec
	}{
		"Plain": {"an S3 store as the guide writes it",
			api.GlanceBackendSpec{Type: api.BackendTypeS3, S3: &api.S3Store{Host: "https://s3.example.com", S3Options: api.S3Options{Bucket: "images"}}}},
		"Escaped": {"values JSON escapes: HTML characters, a line separator, a quote, invalid UTF-8",
			api.GlanceBackendSpec{Type: api.BackendTypeS3, S3: &api.S3Store{Host: "http://a<b>&c", S3Options: api.S3Options{Bucket: "x\u2028\"y\xff", LargeObjectSize: &size}},
				ExtraOptions: map[string]string{"z": "<", "a": "&"}}},
		"NoS3": {"no s3 block and no extraOptions", api.GlanceBackendSpec{Type: "Swift"}},
	}
	for name, tc := range cases {
		marshalled, err := json.Marshal(hashedSpec{"store", tc.spec.Type, tc.spec.S3, tc.spec.ExtraOptions})
		require.NoError(t, err)
		assert.Equal(t, contenthash.OfOne("spec", marshalled), SpecHash(tc.spec, "store"), "%s: %s", name, tc.reason)
	}
}
