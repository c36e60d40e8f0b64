package glance

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/release"
	"github.com/c5c3/glance-hooks/hooks/contract/storeconf"
	"github.com/c5c3/glance-hooks/hooks/glance/render"
)

// LoggingFile is the Python logging config glance-api reads (through
// [DEFAULT] log_config_append) when spec.logging asks for what oslo.log's
// own options cannot say: JSON records, or a root level other than INFO.
const LoggingFile = "logging.conf"

// ownLoggingConfig reports whether spec.logging needs LoggingFile. oslo.log
// sets the root logger to INFO (DEBUG with debug) and writes text; anything
// else goes through a logging config, which oslo.log then uses instead of
// its own options.
func ownLoggingConfig(l *api.LoggingSpec) bool {
	return l != nil && (l.Format == api.LogFormatJSON || l.Level != api.DefaultLogLevel)
}

// loggingFile writes LoggingFile into the config ConfigMap when
// spec.logging needs it.
func loggingFile(in render.ConfInput, data map[string]string) error {
	if ownLoggingConfig(in.Spec.Logging) {
		data[LoggingFile] = renderLoggingConfig(*in.Spec.Logging, in.Rel)
	}
	return nil
}

// loggingConf is what spec.logging adds to [DEFAULT].
func loggingConf(in render.ConfInput) (render.ConfPart, error) {
	return render.ConfPart{Defaults: loggingOptions(in.Spec.Logging, in.Rel)}, nil
}

// loggingOptions are the [DEFAULT] options spec.logging renders for the
// release glance-api runs; none without it, so oslo.log's defaults hold
// as they always did.
func loggingOptions(l *api.LoggingSpec, rel release.Release) []storeconf.Option {
	if l == nil {
		return nil
	}
	debug := l.Debug != nil && *l.Debug
	out := []storeconf.Option{{Key: "debug", Value: fmt.Sprint(debug)}}
	if ownLoggingConfig(l) {
		return append(out, storeconf.Option{Key: "log_config_append", Value: render.ConfigDir + "/" + LoggingFile})
	}
	if len(l.PerLoggerLevels) > 0 {
		out = append(out, storeconf.Option{Key: "default_log_levels", Value: defaultLogLevels(rel, l.PerLoggerLevels)})
	}
	return out
}

// renderLoggingConfig is LoggingFile: the root logger at the level asked
// (DEBUG with debug), each named logger at its own (configLogLevels), all to stderr, as text
// through oslo.log's context formatter or as JSON through its JSON
// formatter. A logger's name is only ever a qualname value (sections are
// keyed by position); admission refuses the '%' ConfigParser would
// interpolate and what cannot be one line.
func renderLoggingConfig(l api.LoggingSpec, rel release.Release) string {
	root := l.Level
	if l.Debug != nil && *l.Debug {
		root = "DEBUG"
	}
	levels := configLogLevels(rel, root, l.PerLoggerLevels)
	formatter := "oslo_log.formatters.ContextFormatter"
	if l.Format == api.LogFormatJSON {
		formatter = "oslo_log.formatters.JSONFormatter"
	}
	// Loggers are keyed by position, not by name: two names may differ
	// only where a section name cannot.
	names := slices.Sorted(maps.Keys(levels))
	keys := []string{"root"}
	for i := range names {
		keys = append(keys, fmt.Sprintf("l%d", i+1))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[loggers]\nkeys = %s\n\n", strings.Join(keys, ","))
	b.WriteString("[handlers]\nkeys = stderr\n\n[formatters]\nkeys = oslo\n\n")
	fmt.Fprintf(&b, "[logger_root]\nlevel = %s\nhandlers = stderr\n", root)
	for i, n := range names {
		fmt.Fprintf(&b, "\n[logger_%s]\nlevel = %s\nhandlers =\nqualname = %s\n", keys[i+1], levels[n], n)
	}
	b.WriteString("\n[handler_stderr]\nclass = StreamHandler\nargs = (sys.stderr,)\nformatter = oslo\n")
	fmt.Fprintf(&b, "\n[formatter_oslo]\nclass = %s\n", formatter)
	return b.String()
}

// oslo.log's DEFAULT_LOG_LEVELS (oslo_log/_options.py), the default of
// [DEFAULT] default_log_levels, in the oslo.log each release's glance-api
// runs with: the versions the option catalogs were generated from (their
// sources, hooks/contract/optioncatalog/catalogs), 7.1.0 for 2025.1 and
// 7.2.1 for 2025.2, which hold the same list, and 8.1.0 for 2026.1, which
// drops amqplib and qpid. Glance keeps oslo.log's list as it is (it never
// sets this default), so these are the levels glance-api starts with.
var (
	osloLogLevels2025 = []string{
		"amqp=WARN", "amqplib=WARN", "boto=WARN", "qpid=WARN", "sqlalchemy=WARN", "suds=INFO",
		"oslo.messaging=INFO", "oslo_messaging=INFO", "iso8601=WARN",
		"requests.packages.urllib3.connectionpool=WARN", "urllib3.connectionpool=WARN", "websocket=WARN",
		"requests.packages.urllib3.util.retry=WARN", "urllib3.util.retry=WARN",
		"keystonemiddleware=WARN", "routes.middleware=WARN", "stevedore=WARN", "taskflow=WARN",
		"keystoneauth=WARN", "oslo.cache=INFO", "oslo_policy=INFO", "dogpile.core.dogpile=INFO",
	}
	osloLogLevels2026 = slices.DeleteFunc(slices.Clone(osloLogLevels2025), func(s string) bool {
		return s == "amqplib=WARN" || s == "qpid=WARN"
	})
	release2026 = release.Release{Year: 2026, Minor: 1}
)

// osloLogDefaultLevels is oslo.log's default level of each logger it
// names, in the oslo.log of release r; a release after the last one known
// takes the newest list, one before the first the oldest.
func osloLogDefaultLevels(r release.Release) map[string]string {
	list := osloLogLevels2025
	if r.AtLeast(release2026) {
		list = osloLogLevels2026
	}
	out := make(map[string]string, len(list))
	for _, pair := range list {
		name, level, _ := strings.Cut(pair, "=")
		out[name] = level
	}
	return out
}

// defaultLogLevels is [DEFAULT] default_log_levels for the levels a user
// sets: the option replaces oslo.log's whole list, so writing only the
// user's loggers would put sqlalchemy, keystonemiddleware and the others
// back at the root's level. oslo.log's defaults of release r are merged
// with them, the user's level winning for a logger both name, and sorted
// by logger so the config's hash does not depend on map order.
func defaultLogLevels(r release.Release, user map[string]string) string {
	levels := osloLogDefaultLevels(r)
	maps.Copy(levels, user)
	pairs := make([]string, 0, len(levels))
	for _, name := range slices.Sorted(maps.Keys(levels)) {
		pairs = append(pairs, name+"="+levels[name])
	}
	return strings.Join(pairs, ",")
}

// logLevelRank orders Python's level names, most verbose first; WARN is
// oslo.log's spelling of WARNING.
var logLevelRank = map[string]int{"DEBUG": 10, "INFO": 20, "WARN": 30, "WARNING": 30, "ERROR": 40, "CRITICAL": 50}

// configLogLevels are the levels of the named loggers of LoggingFile. With a
// logging config oslo.log ignores default_log_levels, so its defaults for
// release r are written there too, each no more verbose than the root:
// they quiet chatty libraries (keystonemiddleware, sqlalchemy), and must
// not make one louder than a root at WARNING or ERROR would. The user's
// levels are written as given.
func configLogLevels(r release.Release, root string, user map[string]string) map[string]string {
	levels := osloLogDefaultLevels(r)
	for name, level := range levels {
		if logLevelRank[level] < logLevelRank[root] {
			levels[name] = root
		}
	}
	maps.Copy(levels, user)
	return levels
}
