package storeconf

import (
	"fmt"
	"unicode/utf8"
)

// TextProblem says why v is not plain text, or "" when it is: text that is
// not UTF-8, or that holds a C0 or C1 control character, DEL, or the line
// and paragraph separators U+2028 and U+2029. Each of them ends a line or
// moves a terminal's cursor somewhere a reader (oslo.config, YAML, a log
// viewer, an HTTP header, a JSON body read by Python) takes it differently
// from the writer. Like ValueProblem it never repeats v or says where in it
// the problem is: v may be a credential.
func TextProblem(v string) string {
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
		}
	}
	return ""
}
