// Package inivalue says which strings a rendered file may hold as they are:
// a value oslo.config reads back unchanged (ValueProblem), the characters
// no rendered file, label, status field or process argument may carry
// (CharacterProblem), a host address (lists.go, which also writes
// oslo.config's list and dict options), and a URL the service can use
// (url.go). It imports nothing of this module, so the API
// package's spec parts can hold rules with it (hooks/contract/api) and
// storeconf, which writes the INI files and imports the API, builds on it.
package inivalue

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// ValueProblem says why a value cannot be written safely, or "" when it can.
// It never repeats the value or says where in it the problem is (it may be
// a credential). oslo.config's parser
// ends a value at a newline, treats an indented next line as a continuation,
// strips surrounding whitespace and one pair of matching quotes; all of that
// would change the value or open a new option or section, so such values are
// refused rather than silently altered. '$' is not refused: Escape doubles it.
func ValueProblem(v string) string {
	if p := CharacterProblem(v); p != "" {
		return p
	}
	if strings.TrimSpace(v) != v {
		return "has leading or trailing whitespace"
	}
	// oslo.config strips a quote at both ends when the first and last
	// characters are the same quote: a value that is one quote is both, and
	// reads back empty.
	if v == `"` || v == "'" {
		return "is a lone quote, which the config parser reads as an empty value"
	}
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		return "is wrapped in quotes, which the config parser would strip"
	}
	return ""
}

// LineBreak reports whether s holds a newline or a carriage return, which
// would start a new line of a rendered file past every other check. The
// reference refuses exactly these two in its own words; CharacterProblem
// refuses them with every other control character.
func LineBreak(s string) bool {
	return strings.ContainsAny(s, "\r\n")
}

// CharacterProblem says why a string holds a character no rendered file,
// label, status field or process argument may carry, or "" when it holds
// none: invalid UTF-8, a C0 or C1 control character (newline, carriage
// return, tab and NUL among them), DEL, the line and paragraph separators
// U+2028 and U+2029 that YAML and some readers take for a line break, and
// the invisible byte-order mark. Like ValueProblem it never repeats the
// value; it is the part of ValueProblem that holds for any string,
// surrounding whitespace and quotes included.
func CharacterProblem(v string) string {
	if !utf8.ValidString(v) {
		return "is not valid UTF-8"
	}
	for _, r := range v {
		switch {
		case r == '\n':
			return "contains a newline"
		case r == '\r':
			return "contains a carriage return"
		case r == 0:
			return "contains a NUL byte"
		case r == '\t':
			return "contains a tab"
		case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0, r == 0x2028, r == 0x2029:
			return fmt.Sprintf("contains the control character U+%04X", r)
		case r == 0xfeff:
			// A byte-order mark: invisible, and where a line starts some
			// readers take it for the start of the file.
			return "contains the invisible character U+FEFF"
		}
	}
	return ""
}
