package storeconf

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/c5c3/glance-hooks/hooks/contract/excerpt"
)

// isOptionKey reports whether s is ^[A-Za-z0-9_]+$, the option names the
// reference takes (by hand: every line of every store section is checked
// with it on every Glance sync). oslo.config matches names case-sensitively,
// so an upper-case name is one line of its own that no option reads; it
// cannot stand in for an option the service renders.
func isOptionKey(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// MaxOptionKeyLength bounds an option name, as the reference does.
const MaxOptionKeyLength = 256

// ValidateKey refuses option names that could be anything but one option.
func ValidateKey(key string) error {
	if !isOptionKey(key) {
		return fmt.Errorf("option name %s must match ^[A-Za-z0-9_]+$ (letters, digits, and underscore)", excerpt.Value(key))
	}
	if len(key) > MaxOptionKeyLength {
		return fmt.Errorf("option name %s must be at most %d characters", excerpt.Value(key), MaxOptionKeyLength)
	}
	return nil
}

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

// Escape makes a value literal for oslo.config: '$' starts an interpolation
// of another option there, and "$$" is its escape for a plain '$'.
func Escape(v string) string { return strings.ReplaceAll(v, "$", "$$") }

// Option is one key = value line.
type Option struct {
	Key   string
	Value string
}

// Section is one [name] block. Options keep the order given.
type Section struct {
	Name    string
	Options []Option
}

// Write renders sections in the order given, each value escaped. Callers
// validate keys and values first; Write refuses (rather than emits) anything
// that would still break the file, so a bug upstream cannot become an
// injected section.
func Write(sections ...Section) (string, error) {
	var b strings.Builder
	for i, s := range sections {
		if strings.ContainsAny(s.Name, "[]\r\n") || s.Name == "" {
			return "", fmt.Errorf("section name %q is not valid", s.Name)
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("[" + s.Name + "]\n")
		for _, o := range s.Options {
			if err := ValidateKey(o.Key); err != nil {
				return "", fmt.Errorf("[%s]: %w", s.Name, err)
			}
			if p := ValueProblem(o.Value); p != "" {
				return "", fmt.Errorf("[%s] %s: value %s", s.Name, o.Key, p)
			}
			b.WriteString(o.Key)
			b.WriteString(" = ")
			b.WriteString(Escape(o.Value))
			b.WriteByte('\n')
		}
	}
	return b.String(), nil
}

// SortedOptions turns a map into options in key order.
func SortedOptions(m map[string]string) []Option {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]Option, 0, len(keys))
	for _, k := range keys {
		out = append(out, Option{Key: k, Value: m[k]})
	}
	return out
}

// HasSectionHeader reports whether an INI text has "[name]" on a line of its
// own (trailing carriage returns aside). It looks for the header itself
// rather than splitting the text into lines: a backends.conf holds a section
// per store and every GlanceBackend looks for its own.
func HasSectionHeader(text []byte, name string) bool {
	header := []byte("[" + name + "]")
	for i := 0; i < len(text); {
		j := bytes.Index(text[i:], header)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(header)
		rest := bytes.TrimLeft(text[end:], "\r")
		if (start == 0 || text[start-1] == '\n') && (len(rest) == 0 || rest[0] == '\n') {
			return true
		}
		i = start + 1
	}
	return false
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
