package render

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/release"
	"github.com/c5c3/glance-hooks/hooks/contract/storeconf"
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

// LoggingConf is what spec.logging adds to [DEFAULT].
func LoggingConf(in ConfInput) (ConfPart, error) {
	return ConfPart{Defaults: LoggingOptions(in.Spec.Logging, in.Rel)}, nil
}

// LoggingOptions are the [DEFAULT] options spec.logging renders for the
// release glance-api runs; none without it, so oslo.log's defaults hold
// as they always did.
func LoggingOptions(l *api.LoggingSpec, rel release.Release) []storeconf.Option {
	if l == nil {
		return nil
	}
	debug := l.Debug != nil && *l.Debug
	out := []storeconf.Option{{Key: "debug", Value: fmt.Sprint(debug)}}
	if ownLoggingConfig(l) {
		return append(out, storeconf.Option{Key: "log_config_append", Value: ConfigDir + "/" + LoggingFile})
	}
	if len(l.PerLoggerLevels) > 0 {
		out = append(out, storeconf.Option{Key: "default_log_levels", Value: DefaultLogLevels(rel, l.PerLoggerLevels)})
	}
	return out
}

// RenderLoggingConfig is LoggingFile: the root logger at the level asked
// (DEBUG with debug), each named logger at its own (configLogLevels), all to stderr, as text
// through oslo.log's context formatter or as JSON through its JSON
// formatter. A logger's name is only ever a qualname value (sections are
// keyed by position); admission refuses the '%' ConfigParser would
// interpolate and what cannot be one line.
func RenderLoggingConfig(l api.LoggingSpec, rel release.Release) string {
	root := l.Level
	if l.Debug != nil && *l.Debug {
		root = "DEBUG"
	}
	levels := ConfigLogLevels(rel, root, l.PerLoggerLevels)
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
