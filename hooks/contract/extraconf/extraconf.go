// Package extraconf holds the rules for options an operator writes into
// glance-api.conf by hand (a Glance's spec.extraConfig and spec.plugins):
// which keys stay with the field that guards them, and which keys the hooks
// render themselves, so an override of them is reported. Admission refuses
// by the first rule and the Glance hook reports by the second; both read
// them here so the two never disagree.
package extraconf

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Guard names the spec field that owns a key an operator may not set by
// hand, and why.
type Guard struct {
	// Field is the field of a Glance's spec that sets it, relative to the
	// spec ("" when no field does): a ControlPlane holds the same field
	// under spec.services.glance, so where it is depends on the object.
	Field string
	// Why the key is refused.
	Why string
}

// The fields that guard keys, relative to a Glance's spec.
const (
	FieldServiceUser     = "serviceUser.secretRef"
	FieldDatabase        = "database.secretRef"
	FieldImportFiltering = "importFiltering"
	FieldImageCache      = "imageCache"
	FieldImportPlugins   = "importPlugins"
	FieldPolicyOverrides = "policyOverrides"
	FieldMiddleware      = "middleware"
	FieldStaging         = "staging"
)

// NotOnControlPlane are the guarding fields a ControlPlane's
// spec.services.glance does not have: the Glance it projects never sets
// them, so its refusal names them as the Glance's. A test in admission
// holds this list to the ControlPlane's type.
var NotOnControlPlane = map[string]bool{FieldPolicyOverrides: true, FieldMiddleware: true}

// The reasons a key is guarded, one per owner.
var (
	guardServiceUser = Guard{FieldServiceUser, "the service user's password stays in its Secret and reaches glance-api as an environment variable"}
	guardDatabase    = Guard{FieldDatabase, "a database password stays in a Secret; a ConfigMap holds glance-api.conf"}
	guardFiltering   = Guard{FieldImportFiltering, "the web-download URI filter is set by its own field"}
	guardImageCache  = Guard{FieldImageCache, "the image cache is set by its own field, which also mounts its directory"}
	guardPlugins     = Guard{FieldImportPlugins, "the import plugins are set by their own field; setting them here bypasses the fixed decompression-before-conversion order, the output-format enum and the property-name rules"}
	guardLocations   = Guard{"", "image locations carry the S3 store's access keys, so the hooks keep them hidden"}
	guardPolicy      = Guard{FieldPolicyOverrides, "the policy file is rendered from the policy overrides"}
	guardPaste       = Guard{FieldMiddleware, "the paste pipeline is rendered by the hooks; filters go in through their own field"}
	guardTasks       = Guard{FieldStaging, "task flows work in the tasks volume, which is sized with the staging area"}
	guardInterpreter = Guard{FieldImportPlugins, "image conversion under uWSGI needs the hooks' value here: its default is the uWSGI binary, which would start a server"}
)

// guardedKeys are the guarded keys, by section and key.
var guardedKeys = map[[2]string]Guard{
	{"keystone_authtoken", "password"}:            guardServiceUser,
	{"image_import_opts", "image_import_plugins"}: guardPlugins,
	{"DEFAULT", "show_image_direct_url"}:          guardLocations,
	{"DEFAULT", "show_multiple_locations"}:        guardLocations,
	{"oslo_policy", "policy_file"}:                guardPolicy,
	{"oslo_policy", "policy_dirs"}:                guardPolicy,
	{"task", "work_dir"}:                          guardTasks,
	{"wsgi", "python_interpreter"}:                guardInterpreter,
}

// guardedSections are the sections whose every key is guarded: the import
// plugins' settings belong to spec.importPlugins, which also enables them.
var guardedSections = map[string]Guard{
	"import_filtering_opts":      guardFiltering,
	"paste_deploy":               guardPaste,
	"image_conversion":           guardPlugins,
	"inject_metadata_properties": guardPlugins,
	"image_decompression":        guardPlugins,
}

// Guarded says whether section and key belong to a guarded field (or leak
// a secret), and which. value is the value written, for the one key whose
// guard depends on it ([database] connection holds a password only when its
// URL carries one).
func Guarded(section, key, value string) (Guard, bool) {
	if g, ok := guardedKeys[[2]string{section, key}]; ok {
		return g, true
	}
	if g, ok := guardedSections[section]; ok {
		return g, true
	}
	switch {
	case section == "database" && (key == "connection" || key == "slave_connection") && urlHasPassword(value):
		return guardDatabase, true
	case section == "DEFAULT" && strings.HasPrefix(key, "image_cache_"):
		return guardImageCache, true
	}
	return Guard{}, false
}

// urlHasPassword reports whether a database URL carries a password (or
// cannot be read, so might).
func urlHasPassword(v string) bool {
	u, err := url.Parse(v)
	if err != nil {
		// Unreadable: an '@' may still be one's end.
		return strings.Contains(v, "@")
	}
	if u.User == nil && strings.Contains(v, "@") {
		return true // no user info where a URL would have it
	}
	if _, set := u.User.Password(); set {
		return true
	}
	return queryHasPassword(u.RawQuery)
}

// queryHasPassword reports whether a URL's query string names a password
// (SQLAlchemy passes query arguments to the driver, password= among them),
// or cannot be read, so might.
func queryHasPassword(raw string) bool {
	q, err := url.ParseQuery(raw)
	if err != nil {
		return strings.Contains(strings.ToLower(raw), "pass")
	}
	for k := range q {
		if k := strings.ToLower(k); strings.Contains(k, "pass") || strings.Contains(k, "pwd") {
			return true
		}
	}
	return false
}

// Where a refusal is made: the object whose fields it names.
const (
	// OnGlance names a Glance's field, spec.<field>.
	OnGlance = "spec"
	// OnControlPlane names a ControlPlane's, spec.services.glance.<field>.
	OnControlPlane = "spec.services.glance"
)

// The blocks a guarded key may be written in, as a refusal names them.
const (
	InExtraConfig  = "extraConfig"
	InPluginConfig = "a plugin's config"
)

// Message is the refusal of a guarded key written in block (InExtraConfig,
// InPluginConfig), without its value, naming the owning field where the
// object being checked (root: OnGlance or OnControlPlane) has it. A key a
// field owns is refused in the reference's words, "<key> is managed via
// <field> and must not be set in extraConfig (<why>)"; one no field sets
// (image locations) only this project refuses, in its own.
func (g Guard) Message(section, key, root, block string) string {
	switch {
	case g.Field == "":
		return fmt.Sprintf("[%s] %s cannot be set here: %s", section, key, g.Why)
	case root == OnControlPlane && NotOnControlPlane[g.Field]:
		return fmt.Sprintf("%s is managed via a Glance's spec.%s (a ControlPlane does not set it) and must not be set in %s (%s)", key, g.Field, block, g.Why)
	}
	return fmt.Sprintf("%s is managed via %s.%s and must not be set in %s (%s)", key, root, g.Field, block, g.Why)
}

// ownedKeys are the keys the hooks render from the spec and the attached
// stores and that an override changes underneath them: the stores, the
// database, the identity glance-api checks tokens as. A key not listed here
// that the hooks render (workers, logging, the policy defaults, ...) is a
// default an operator may tune; it is not reported.
var ownedKeys = map[string]map[string]bool{
	"DEFAULT":      {"enabled_backends": true},
	"glance_store": {"default_backend": true},
	"database":     {"connection": true},
	"keystone_authtoken": {
		"www_authenticate_uri": true, "auth_url": true, "auth_type": true, "username": true,
		"project_name": true, "user_domain_name": true, "project_domain_name": true,
		"user_domain_id": true, "project_domain_id": true, "user_id": true, "project_id": true,
		"interface": true, "region_name": true, "memcached_servers": true,
	},
}

// ownedSections are store sections whose every key the hooks own.
var ownedSections = map[string]bool{"os_glance_staging_store": true, "os_glance_tasks_store": true}

// Owned reports whether the hooks own section and key.
func Owned(section, key string) bool {
	return ownedSections[section] || ownedKeys[section][key]
}

// ownedImpacts say what an override of an owned key does, where the
// reference says it too, in its words.
var ownedImpacts = map[[2]string]string{
	{"DEFAULT", "enabled_backends"}: "must agree with the projected backends Secret",
	{"database", "connection"}:      "the runtime value comes from the OS_DATABASE__CONNECTION env override, so the file override is ignored",
}

// OwnedOverrideWarning is the reference ControlPlane's admission warning
// for an owned key its merged extraConfig overrides: honoured, and
// reported. at are the paths of the blocks that set it.
func OwnedOverrideWarning(section, key string, at []string) string {
	msg := fmt.Sprintf("[%s] %s overrides an operator-owned key (managed by operator-computed)", section, key)
	if impact := ownedImpacts[[2]string{section, key}]; impact != "" {
		msg += " (" + impact + ")"
	}
	return msg + "; the override is honored but reported (set at " + strings.Join(at, ", ") + ")"
}

// PasteNames are the filter and application names of the paste pipeline
// the hooks render (the sections of glance-api-paste.ini): a filter from
// spec.middleware with one of these names would replace the hooks' own.
// A feature that puts a filter of its own into the pipeline lists it here.
var PasteNames = []string{
	"cors", "healthcheck", "http_proxy_to_wsgi", "versionnegotiation", "osprofiler", "authtoken", "context",
	"rootapp", "apiversions", "apiv2app",
}

// MaxFilterNameLength bounds a filter's name (the CRD's maxLength). The
// reference sets no bound; this one is far above any name in use and keeps
// the object's size and the pipeline line in reason.
const MaxFilterNameLength = 253

// FilterNameProblem says why name cannot be a filter's, "" when it can. A
// name is a word of the pipeline line and the end of a [filter:<name>]
// section: PasteDeploy (checked with 3.0.1, glance 25.1's) and oslo.config,
// which glance-api also reads the paste file with, take any other
// character there, so any other name the reference accepts is accepted
// here too (unauthenticated-context, audit.v2, ...).
func FilterNameProblem(name string) string {
	switch {
	case name == "":
		return "must not be empty"
	case len(name) > MaxFilterNameLength:
		return fmt.Sprintf("must be at most %d characters", MaxFilterNameLength)
	case !utf8.ValidString(name) || strings.IndexFunc(name, splitsWord) >= 0:
		return "must not contain whitespace or control characters: the pipeline line lists the filters separated by whitespace"
	case strings.Contains(name, ":"):
		return "must not contain ':': PasteDeploy reads a pipeline word with ':' as a URI (egg:, config:, call:)"
	case strings.Contains(name, "%"):
		return "must not contain '%': PasteDeploy interpolates %(...)s in the pipeline line"
	case slices.Contains(PasteNames, name):
		return "is a filter or application of the pipeline the hooks render"
	}
	return ""
}

// splitsWord reports whether r ends a word of the pipeline line (Python's
// str.split splits at every Unicode space) or cannot be seen in one.
func splitsWord(r rune) bool {
	return unicode.IsSpace(r) || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == utf8.RuneError
}

// filterFactory is a paste filter factory, module.path:callable.
var filterFactory = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*:[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$`)

// pasteKey is what a filter setting may be called.
var pasteKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]{0,127}$`)

// FilterFactoryProblem says why f cannot be a paste filter factory.
func FilterFactoryProblem(f string) string {
	if !filterFactory.MatchString(f) {
		return "must be a Python module path and callable, module.path:callable"
	}
	return ""
}

// FilterKeyProblem says why k cannot name a filter setting.
func FilterKeyProblem(k string) string {
	switch {
	case !pasteKey.MatchString(k):
		return "must be letters, digits, '_', '.' or '-', starting with a letter or '_'"
	case k == "paste.filter_factory" || k == "use":
		return "is set from filterFactory"
	}
	return ""
}
