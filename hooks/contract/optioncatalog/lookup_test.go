package optioncatalog

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/c5c3/glance-hooks/hooks/contract/release"
)

// stores is a Glance with the guide's two S3 stores (one called "default")
// and the reserved file stores.
var stores = StoreSections{
	"default":                 "s3",
	"secondary":               "s3",
	"os_glance_staging_store": "file",
	"os_glance_tasks_store":   "file",
}

func TestLookup(t *testing.T) {
	r2025_2 := release.Release{Year: 2025, Minor: 2}
	r2026_1 := release.Release{Year: 2026, Minor: 1}
	cases := map[string]struct {
		reason       string
		rel          release.Release
		section, key string
		stores       StoreSections
		want         Verdict
	}{
		"DEFAULT option": {"glance's own option in DEFAULT",
			r2025_2, "DEFAULT", "allow_anonymous_access", stores, Verdict{Status: Known}},
		"lower-case default is a store": {"the store called default takes S3 options, not DEFAULT's",
			r2025_2, "default", "allow_anonymous_access", stores, Verdict{Status: Unknown}},
		"store option": {"an S3 store section takes the s3 driver's options",
			r2025_2, "secondary", "s3_store_host", stores, Verdict{Status: Known}},
		"store option in its own section": {"store_description is registered per store at runtime",
			r2026_1, "default", "store_description", stores, Verdict{Status: Known}},
		"other driver's option in a store": {"an S3 store does not take the file driver's options",
			r2025_2, "secondary", "filesystem_store_datadir", stores, Verdict{Status: Unknown}},
		"reserved file store": {"the staging store is a file store",
			r2025_2, "os_glance_staging_store", "filesystem_store_datadir", stores, Verdict{Status: Known}},
		"store not named a store": {"without the caller naming it a store, a store id is no section",
			r2025_2, "secondary", "s3_store_host", nil, Verdict{Status: Unknown}},
		"unknown driver": {"a store of a driver the catalog lacks takes nothing",
			r2025_2, "secondary", "s3_store_host", StoreSections{"secondary": "ftp"}, Verdict{Status: Unknown}},
		"driver alias": {"an old name within a store section is replaced in the same section",
			r2025_2, "block", "os_region_name", StoreSections{"block": "cinder"},
			Verdict{Status: Deprecated, Replacement: Option{Section: "block", Key: "cinder_os_region_name"}}},
		"library option": {"keystonemiddleware's option",
			r2025_2, "keystone_authtoken", "memcached_servers", stores, Verdict{Status: Known}},
		"auth plugin option": {"the password plugin's options are registered at runtime",
			r2025_2, "keystone_authtoken", "project_domain_name", stores, Verdict{Status: Known}},
		"alias in the same section": {"memcache_servers is the old name of memcached_servers",
			r2025_2, "keystone_authtoken", "memcache_servers", stores,
			Verdict{Status: Deprecated, Replacement: Option{Section: "keystone_authtoken", Key: "memcached_servers"}}},
		"alias in another section": {"[DEFAULT] disk_formats moved to [image_format]",
			r2025_2, "DEFAULT", "disk_formats", stores,
			Verdict{Status: Deprecated, Replacement: Option{Section: "image_format", Key: "disk_formats"}}},
		"alias across sections": {"[task] eventlet_executor_pool_size is read for [taskflow_executor] max_workers",
			r2026_1, "task", "eventlet_executor_pool_size", stores,
			Verdict{Status: Deprecated, Replacement: Option{Section: "taskflow_executor", Key: "max_workers"}}},
		"deprecated for removal": {"an option still read but on its way out",
			r2026_1, "DEFAULT", "digest_algorithm", stores, Verdict{Status: Known, ForRemoval: true}},
		"unknown key": {"a misspelt key",
			r2025_2, "DEFAULT", "allow_anonymous_acess", stores, Verdict{Status: Unknown}},
		"unknown section": {"a section no library registers",
			r2025_2, "no_such_section", "debug", stores, Verdict{Status: Unknown}},
		"key case": {"keys are compared exactly",
			r2025_2, "DEFAULT", "Debug", stores, Verdict{Status: Unknown}},
		"section case": {"sections are compared exactly",
			r2025_2, "Keystone_Authtoken", "memcached_servers", stores, Verdict{Status: Unknown}},
		"no catalog": {"a release without a catalog says so",
			release.Release{Year: 2023, Minor: 1}, "DEFAULT", "debug", stores, Verdict{Status: NoCatalog}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := Lookup(tc.rel, tc.section, tc.key, tc.stores)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s: Lookup(%s, [%s] %s) (-want +got):\n%s", tc.reason, tc.rel, tc.section, tc.key, diff)
			}
		})
	}
}

// An option that exists in one release only answers per release.
func TestLookupDiffersByRelease(t *testing.T) {
	for _, r := range Releases() {
		c, _ := For(r)
		if got := c.Lookup("DEFAULT", "enabled_backends", nil); got.Status != Known {
			t.Errorf("%s: [DEFAULT] enabled_backends is %s, want known", r, got.Status)
		}
	}
	// s3_store_request_checksum_calculation came with glance_store 5.x
	// (2026.1); 2025.1's glance_store 4.9 has no such option.
	old, _ := For(release.Release{Year: 2025, Minor: 1})
	cur, _ := For(release.Release{Year: 2026, Minor: 1})
	key := "s3_store_request_checksum_calculation"
	if got := old.Lookup("default", key, stores).Status; got != Unknown {
		t.Errorf("2025.1 [default] %s is %s, want unknown", key, got)
	}
	if got := cur.Lookup("default", key, stores).Status; got != Known {
		t.Errorf("2026.1 [default] %s is %s, want known", key, got)
	}
}

func TestParseRefuses(t *testing.T) {
	cases := map[string]string{
		"not JSON":    `{`,
		"no release":  `{"groups": {"DEFAULT": {"options": ["debug"]}}}`,
		"no sections": `{"release": "2025.1", "groups": {}}`,
		"bad alias":   `{"release": "2025.1", "groups": {"DEFAULT": {"options": ["a"], "aliases": {"DEFAULT": {"b": ["a"]}}}}}`,
	}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := Parse([]byte(in)); err == nil {
				t.Errorf("Parse(%s) succeeded, want an error", in)
			}
		})
	}
}

// Two options claiming one old name: the answer is the same however the
// groups are read.
func TestAliasConflictIsDeterministic(t *testing.T) {
	in := `{"release": "2025.1", "groups": {
	  "a": {"options": ["x"], "aliases": {"old": {"k": ["a", "x"]}}},
	  "b": {"options": ["y"], "aliases": {"old": {"k": ["b", "y"]}}}}}`
	for i := 0; i < 20; i++ {
		c, err := Parse([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		got := c.Lookup("old", "k", nil)
		if want := (Verdict{Status: Deprecated, Replacement: Option{Section: "a", Key: "x"}}); got != want {
			t.Fatalf("Lookup([old] k) = %+v, want %+v", got, want)
		}
	}
}

// The cost of checking one extraConfig key, store section or not.
func BenchmarkLookup(b *testing.B) {
	r := release.Release{Year: 2026, Minor: 1}
	For(r)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Lookup(r, "DEFAULT", "allow_anonymous_access", stores)
		Lookup(r, "secondary", "s3_store_host", stores)
		Lookup(r, "DEFAULT", "disk_formats", stores)
	}
}
