// Package storeconf knows how a store becomes glance-api configuration: which
// store ids are allowed, how an INI section is written so that no value can
// break out of it, and the hash that tells a Glance which spec a store
// section was rendered from.
package storeconf

import (
	"fmt"
	"strings"

	"github.com/c5c3/glance-hooks/hooks/contract/excerpt"
)

// MaxStoreIDLength bounds a store id. A config section name and an entry
// of enabled_backends take any length; the bound is the GlanceBackend
// whose name is its store id: its store Secret, <name>-store, is an object
// name of at most 253 characters. So every name the reference accepts for
// a GlanceBackend (an object name) is a store id here. spec.storeId and a
// ControlPlane's entry names are bounded to 63 by the CRDs.
const MaxStoreIDLength = 253 - len("-store")

// isStoreIDShape reports whether s is ^[a-z0-9]([a-z0-9._-]*[a-z0-9])?$,
// the shape of a store id (by hand: it is checked for every backend on
// every Glance sync).
func isStoreIDShape(s string) bool {
	alnum := func(c byte) bool { return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' }
	if s == "" || !alnum(s[0]) || !alnum(s[len(s)-1]) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		if c := s[i]; !alnum(c) && c != '.' && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

// reservedPrefixes are store ids glance-api keeps for its own stores
// (os_glance_staging_store, os_glance_tasks_store, ...); glance-api refuses to
// start when one appears in enabled_backends.
var reservedPrefixes = []string{"os_glance_", "os-glance-"}

// reservedSections are config sections glance-api (or a library it loads)
// reads for its own options, or that this service renders itself. A store
// with one of these ids would mix its options into that section.
var reservedSections = map[string]bool{
	"DEFAULT": true, "glance_store": true, "database": true, "keystone_authtoken": true,
	"paste_deploy": true, "oslo_policy": true, "oslo_concurrency": true, "oslo_middleware": true,
	"oslo_messaging_notifications": true, "oslo_messaging_rabbit": true, "oslo_messaging_kafka": true,
	"oslo_messaging_amqp": true, "oslo_limit": true, "oslo_reports": true, "cors": true,
	"healthcheck": true, "image_format": true, "task": true, "taskflow_executor": true,
	"profiler": true, "cache": true, "key_manager": true, "barbican": true,
	"barbican_service_user": true, "vault": true, "wsgi": true, "store_type_location_strategy": true,
	"os_brick": true, "image_import_opts": true, "import_filtering_opts": true,
	"inject_metadata_properties": true, "glance_download_properties": true, "image_conversion": true,
	"copy_image": true, "service_user": true, "privsep": true,
}

// ValidateStoreID returns nil for a usable store id, or an error saying why
// the id is refused. The messages are the guide's: they name the id and the rule.
func ValidateStoreID(id string) error {
	for _, p := range reservedPrefixes {
		if strings.HasPrefix(strings.ToLower(id), p) {
			return fmt.Errorf("store id %s uses the reserved %s store-section prefix: glance-api keeps os_glance_* stores for itself", excerpt.Name(id), p)
		}
	}
	if reservedSections[id] {
		return fmt.Errorf("store id %s collides with a reserved store section (a reserved or operator-managed Glance store section of the same name): [%s] holds options glance-api reads for itself", excerpt.Name(id), id)
	}
	if len(id) == 0 || len(id) > MaxStoreIDLength || !isStoreIDShape(id) {
		return fmt.Errorf("store id %s is not valid: use 1 to %d lowercase letters, digits, '.', '_' or '-', starting and ending with a letter or digit", excerpt.Name(id), MaxStoreIDLength)
	}
	return nil
}
