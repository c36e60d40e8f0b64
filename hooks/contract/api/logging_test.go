package api

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLoggerNameProblem holds the logger name rule: the reference refuses
// only an empty name; here a name is refused only where it would break
// default_log_levels or logging.conf (each checked with oslo.config 9.0,
// oslo.log and Python's logging.config on Debian's glance 25.1).
func TestLoggerNameProblem(t *testing.T) {
	cases := map[string]struct {
		reason string
		name   string
		refuse bool
	}{
		"Dotted":         {reason: "a module's logger", name: "sqlalchemy.engine"},
		"Dash":           {reason: "a distribution's logger", name: "glance-store"},
		"Colon":          {reason: "':' is no separator in either file", name: "a:b"},
		"Slash":          {reason: "'/' is read back as written", name: "a/b"},
		"InnerSpace":     {reason: "oslo.config and ConfigParser keep an inner space", name: "a b"},
		"Quote":          {reason: "a quote inside the list is kept", name: `a"b`},
		"Dollar":         {reason: "the writer escapes '$' for oslo.config", name: "a$b"},
		"NonASCII":       {reason: "both files are read as UTF-8", name: "prüfung"},
		"Empty":          {reason: "the reference's own rule", name: "", refuse: true},
		"Equals":         {reason: "oslo.log splits a pair at its first '='", name: "a=b", refuse: true},
		"Comma":          {reason: "default_log_levels is split at ','", name: "a,b", refuse: true},
		"Percent":        {reason: "logging.conf's qualname is %-interpolated; fileConfig fails", name: "a%b", refuse: true},
		"Newline":        {reason: "a newline would open another line of the file", name: "a\nb", refuse: true},
		"LeadingSpace":   {reason: "oslo.config strips it, so the level would go to another logger", name: " a", refuse: true},
		"ControlCharTab": {reason: "a control character cannot be written", name: "a\tb", refuse: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := loggerNameProblem(tc.name)
			if (got != "") != tc.refuse {
				t.Errorf("%s\nloggerNameProblem(%q) = %q, refuse %v", tc.reason, tc.name, got, tc.refuse)
			}
		})
	}
}

// TestLoggingProblems: the format and the root level are enums, refused
// as the reference and the API server refuse them, without the value; a
// per-logger level in the reference's words.
func TestLoggingProblems(t *testing.T) {
	cases := map[string]struct {
		reason string
		in     LoggingSpec
		want   string
	}{
		"Defaults": {"text at INFO", LoggingSpec{}, ""},
		"Format": {"xml is no format oslo.log writes", LoggingSpec{Format: "xml"},
			`logging.format: Unsupported value: supported values: "text", "json"`},
		"Level": {"LOUD is no level", LoggingSpec{Level: "LOUD"},
			`logging.level: Unsupported value: supported values: "DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"`},
		"PerLogger": {"a logger's level", LoggingSpec{PerLoggerLevels: map[string]string{"glance": "LOUD"}},
			"logging.perLoggerLevels[glance]: level must be one of DEBUG, INFO, WARNING, ERROR, CRITICAL"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := loggingProblems(loggingWithDefaults(tc.in)).String()
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s: -want +got:\n%s", tc.reason, diff)
			}
		})
	}
}
