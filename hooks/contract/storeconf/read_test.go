package storeconf

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCheckSection(t *testing.T) {
	written, err := Write(Section{Name: "store", Options: []Option{
		{Key: "s3_store_host", Value: "http://s3:3900"},
		{Key: "s3_store_secret_key", Value: "a$b%c'd\"e"},
	}})
	assert.NoError(t, err)
	assert.NoError(t, CheckSection(written, "store"), "what Write writes is accepted")

	cases := map[string]struct {
		text, want string
	}{
		"another header":        {"[other]\nk = v\n", "does not start with the [store] header"},
		"a byte-order mark":     {"\ufeff[store]\nk = v\n", "does not start with the [store] header"},
		"second section":        {"[store]\nk = v\n[DEFAULT]\nx = y\n", "line 3 is not a \"key = value\" option"},
		"file separator":        {"[store]\nk = v\n\x1cdebug = true\n", "line 3 does not start with an option name"},
		"mark before a key":     {"[store]\n\ufeffk = v\n", "line 2 does not start with an option name"},
		"no delimiter":          {"[store]\nk = v\nk2\n", "line 3 is not a \"key = value\" option"},
		"blank line":            {"[store]\n\nk = v\n", "line 2 is not a \"key = value\" option"},
		"trailing blank line":   {"[store]\nk = v\n\n", "line 3 is not a \"key = value\" option"},
		"indented continuation": {"[store]\nk = v\n  more\n", "line 3 is not a \"key = value\" option"},
		"control in value":      {"[store]\nk = a\x1cb\n", "the value on line 2 contains the control character U+001C"},
		"single dollar":         {"[store]\nk = $host\n", "line 2 holds a '$' that is not written as \"$$\""},
		"lone quote":            {"[store]\nk = \"\n", "the value on line 2 is a lone quote, which the config parser reads as an empty value"},
		"carriage return":       {"[store]\r\nk = v\n", "does not start with the [store] header"},
	}
	for name, tc := range cases {
		err := CheckSection(tc.text, "store")
		if assert.Error(t, err, name) {
			assert.Equal(t, tc.want, err.Error(), name)
		}
	}
}

// CheckSection accepts exactly what Write writes: a section it accepts,
// taken apart into its options, is written back byte for byte.
func FuzzCheckSection(f *testing.F) {
	f.Add("[s]\nk = v\n")
	f.Add("[s]\nk = a$$b\nj = \"x\n")
	f.Add("[s]\nk = v\n\x1cj = w\n")
	f.Add("[s]\na = `\n")
	f.Fuzz(func(t *testing.T, text string) {
		if CheckSection(text, "s") != nil {
			return
		}
		sec := Section{Name: "s"}
		for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n")[1:] {
			key, value, _ := strings.Cut(line, " = ")
			plain, _ := unescape(value)
			sec.Options = append(sec.Options, Option{Key: key, Value: plain})
		}
		written, err := Write(sec)
		if err != nil {
			t.Fatalf("accepted %q, which Write refuses: %v", text, err)
		}
		if strings.TrimSuffix(written, "\n") != strings.TrimSuffix(text, "\n") {
			t.Fatalf("accepted %q, which Write writes as %q", text, written)
		}
	})
}

func TestOptionValue(t *testing.T) {
	section := "[a]\ns3_store_host = https://rgw.internal\ns3_store_secret_key = p$$ss\n"
	for key, want := range map[string]struct {
		value string
		ok    bool
	}{
		"s3_store_host":       {"https://rgw.internal", true},
		"s3_store_secret_key": {"p$ss", true},
		"s3_store_cacert":     {"", false},
		"[a]":                 {"", false},
	} {
		if v, ok := OptionValue(section, key); v != want.value || ok != want.ok {
			t.Errorf("OptionValue(%q) = %q, %t; want %q, %t (the value as written, '$$' read as '$')", key, v, ok, want.value, want.ok)
		}
	}
}
