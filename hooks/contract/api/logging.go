package api

import (
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/c5c3/glance-hooks/hooks/contract/inivalue"
	"github.com/c5c3/glance-hooks/hooks/contract/problem"
)

// The logging feature's part of a Glance spec (spec.logging): its type,
// its defaults and its rules. Its behaviour (oslo.log's options, the
// logging.conf file) is hooks/glance/logging.go.

// LoggingSpec is what oslo.log writes.
type LoggingSpec struct {
	// Format of each record: text (default) or json.
	Format string `json:"format,omitempty"`
	// Level of the root logger: DEBUG, INFO (default), WARNING, ERROR or CRITICAL.
	Level string `json:"level,omitempty"`
	// Debug is oslo.log's debug option.
	Debug *bool `json:"debug,omitempty"`
	// PerLoggerLevels sets the level of named loggers. In text mode they
	// are merged with oslo.log's default levels of the release (sqlalchemy,
	// keystonemiddleware, ... at WARN), a logger named here taking its level
	// from here.
	PerLoggerLevels map[string]string `json:"perLoggerLevels,omitempty"`
}

// Log formats and levels oslo.log takes.
const (
	LogFormatText = "text"
	LogFormatJSON = "json"
)

// LogLevels are the levels a logger may take, most verbose first.
var LogLevels = []string{"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"}

// DefaultLogLevel is oslo.log's own root level without debug.
const DefaultLogLevel = "INFO"

// loggingDefault fills a set logging block; unset, logging stays oslo.log's
// own.
func loggingDefault(s *GlanceSpec, _ string) {
	if s.Logging != nil {
		s.Logging = loggingWithDefaults(*s.Logging)
	}
}

// loggingWithDefaults fills the format and the root level.
func loggingWithDefaults(l LoggingSpec) *LoggingSpec {
	if l.Format == "" {
		l.Format = LogFormatText
	}
	if l.Level == "" {
		l.Level = DefaultLogLevel
	}
	return &l
}

// loggingRules are the part's rules, on a spec with its defaults; paths
// are relative to the Glance settings.
func loggingRules(s GlanceSpec) problem.List { return loggingProblems(s.Logging) }

// loggerNameProblem says why name cannot name a logger, "" when it can.
// A name is written into default_log_levels (name=LEVEL pairs separated by
// ',', which oslo.log splits at the first '=') and into logging.conf's
// qualname (Python's ConfigParser interpolates '%'); anything else Python
// takes for a logger's name, as the reference does (which refuses only an
// empty one).
func loggerNameProblem(name string) string {
	switch {
	case name == "":
		return "logger name must not be empty"
	case strings.ContainsAny(name, "=,%"):
		return "a logger name must not contain '=', ',' or '%': default_log_levels lists name=LEVEL pairs separated by ',', and logging.conf interpolates '%'"
	case inivalue.ValueProblem(name) != "":
		return "a logger name " + inivalue.ValueProblem(name)
	}
	return ""
}

// loggingProblems checks spec.logging with the defaults filled in.
func loggingProblems(lg *LoggingSpec) problem.List {
	if lg == nil {
		return nil
	}
	var l problem.List
	at := field.NewPath("logging")
	// The format and the root level are enums, refused as the reference
	// and the API server refuse them (Unsupported value).
	if lg.Format != LogFormatText && lg.Format != LogFormatJSON {
		l = append(l, problem.NotSupported(at.Child("format"), LogFormatText, LogFormatJSON))
	}
	if !isLogLevel(lg.Level) {
		l = append(l, problem.NotSupported(at.Child("level"), LogLevels...))
	}
	for _, name := range slices.Sorted(maps.Keys(lg.PerLoggerLevels)) {
		k := problem.Key(at.Child("perLoggerLevels"), name)
		if p := loggerNameProblem(name); p != "" {
			l = append(l, problem.At(k, "%s", p))
		}
		if !isLogLevel(lg.PerLoggerLevels[name]) {
			l = append(l, problem.At(k, "level must be one of %s", strings.Join(LogLevels, ", ")))
		}
	}
	return l
}

func isLogLevel(v string) bool {
	for _, lv := range LogLevels {
		if v == lv {
			return true
		}
	}
	return false
}
