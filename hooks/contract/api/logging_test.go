package api

import "testing"

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
