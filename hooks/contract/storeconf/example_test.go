package storeconf_test

import (
	"fmt"

	"github.com/c5c3/glance-hooks/hooks/contract/storeconf"
)

// Write renders sections in the order given, a value's '$' escaped for
// oslo.config; a section name that would break the file is refused.
func ExampleWrite() {
	text, err := storeconf.Write(
		storeconf.Section{Name: "glance_store", Options: []storeconf.Option{{Key: "default_backend", Value: "ceph-rgw"}}},
		storeconf.Section{Name: "ceph-rgw", Options: []storeconf.Option{
			{Key: "s3_store_host", Value: "https://rgw.example.com"},
			{Key: "s3_store_bucket", Value: "images$1"},
		}},
	)
	fmt.Print(text)
	fmt.Println(err)
	_, err = storeconf.Write(storeconf.Section{Name: "a]\n[b"})
	fmt.Println(err)
	// Output:
	// [glance_store]
	// default_backend = ceph-rgw
	//
	// [ceph-rgw]
	// s3_store_host = https://rgw.example.com
	// s3_store_bucket = images$$1
	// <nil>
	// section name "a]\n[b" is not valid
}
