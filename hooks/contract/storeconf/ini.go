package storeconf

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/c5c3/glance-hooks/hooks/contract/excerpt"
	"github.com/c5c3/glance-hooks/hooks/contract/inivalue"
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

// The reference's bounds of a store's extraOptions, which the CRDs hold
// too: at most MaxOptions options, each name at most MaxOptionKeyLength
// characters and each value at most MaxOptionValueLength.
const (
	MaxOptions           = 32
	MaxOptionKeyLength   = 256
	MaxOptionValueLength = 1024
)

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
			if p := inivalue.ValueProblem(o.Value); p != "" {
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
