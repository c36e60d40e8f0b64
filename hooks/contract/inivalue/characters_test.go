package inivalue

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTextProblem(t *testing.T) {
	cases := map[string]struct {
		reason, value, want string
	}{
		"plain":       {"what names and passwords are made of", "p4ss word-$%", ""},
		"blanks kept": {"a password may start or end with a space: only ValueProblem refuses them", " x ", ""},
		"non-ASCII":   {"letters outside ASCII are text", "Glänce ünïcode €", ""},
		"newline":     {"ends a line in a file, a header or a log", "a\nb", "contains a newline"},
		"CR":          {"ends a line for some readers", "a\rb", "contains a carriage return"},
		"NUL":         {"ends a C string and an environment value", "a\x00b", "contains a NUL byte"},
		"tab":         {"a C0 control a config parser folds", "a\tb", "contains a tab"},
		"ESC":         {"starts a terminal escape sequence", "a\x1b[2Jb", "contains the control character U+001B"},
		"BEL":         {"any other C0 control", "a\x07", "contains the control character U+0007"},
		"DEL":         {"DEL is a control character too", "a\x7fb", "contains the control character U+007F"},
		"NEL":         {"U+0085, a C1 control YAML reads as a line break", "a\u0085b", "contains the control character U+0085"},
		"CSI":         {"U+009B, the C1 form of ESC [", "a\u009bb", "contains the control character U+009B"},
		"LS":          {"U+2028 ends a line in YAML and JavaScript", "a\u2028b", "contains the control character U+2028"},
		"PS":          {"U+2029 likewise", "a\u2029b", "contains the control character U+2029"},
		"not UTF-8":   {"a byte no reader agrees on", "a\xffb", "is not valid UTF-8"},
		"cut UTF-8":   {"half of a two-byte character", "a\xc3", "is not valid UTF-8"},
	}
	for name, tc := range cases {
		got := CharacterProblem(tc.value)
		assert.Equal(t, tc.want, got, "%s: %s", name, tc.reason)
		if tc.want != "" {
			assert.NotContains(t, got, strings.TrimSpace(tc.value), "%s: the problem never repeats the value", name)
			assert.Equal(t, tc.want, ValueProblem(tc.value), "%s: a config value is refused for the same reason", name)
		}
	}
}
