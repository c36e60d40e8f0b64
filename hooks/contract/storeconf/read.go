package storeconf

import (
	"fmt"
	"strings"

	"github.com/c5c3/glance-hooks/hooks/contract/inivalue"
)

// CheckSection holds a store section read back from the cluster (a store
// Secret, the running backends.conf) to the rules Write writes by, before it
// is copied into the config glance-api reads: the [id] header, then only
// "key = value" lines whose key is an option name and whose value, '$'
// escaped as "$$", Write would accept. A Secret anyone edited by hand that
// carries another line (a separator or byte-order mark oslo.config reads as
// a line start, a line without " = ", a second section) is refused whole.
// The error names the line, never its content.
func CheckSection(text, id string) error {
	// The lines are cut off one by one, not split into a slice: every
	// attached store's section is checked each sync.
	header, rest, more := strings.Cut(strings.TrimSuffix(text, "\n"), "\n")
	if header != "["+id+"]" {
		return fmt.Errorf("does not start with the [%s] header", id)
	}
	for n := 2; more; n++ {
		var line string
		line, rest, more = strings.Cut(rest, "\n")
		key, value, ok := strings.Cut(line, " = ")
		if !ok {
			return fmt.Errorf("line %d is not a \"key = value\" option", n)
		}
		if ValidateKey(key) != nil {
			return fmt.Errorf("line %d does not start with an option name", n)
		}
		plain, ok := unescape(value)
		if !ok {
			return fmt.Errorf("line %d holds a '$' that is not written as \"$$\"", n)
		}
		if p := inivalue.ValueProblem(plain); p != "" {
			return fmt.Errorf("the value on line %d %s", n, p)
		}
	}
	return nil
}

// OptionValue is the value, '$' unescaped, of the first "key = value" line
// of a section CheckSection accepted; false when no line sets key.
func OptionValue(section, key string) (string, bool) {
	for _, line := range strings.Split(section, "\n") {
		if k, v, ok := strings.Cut(line, " = "); ok && k == key {
			return unescape(v)
		}
	}
	return "", false
}

// unescape undoes Escape; false when a '$' is not doubled.
func unescape(v string) (string, bool) {
	if !strings.Contains(v, "$") {
		return v, true
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] != '$' {
			b.WriteByte(v[i])
			continue
		}
		if i+1 >= len(v) || v[i+1] != '$' {
			return "", false
		}
		b.WriteByte('$')
		i++
	}
	return b.String(), true
}
