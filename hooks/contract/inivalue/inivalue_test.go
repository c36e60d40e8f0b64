package inivalue

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestValueProblem(t *testing.T) {
	for _, v := range []string{"plain", "with space inside", "$dollar", "100%", "a=b", "[not a header alone]x", "ünïcode", `"a`, `a'`, `""x`} {
		assert.Empty(t, ValueProblem(v), v)
	}
	bad := map[string]string{
		"a\nb": "newline", "a\rb": "carriage return", "a\x00b": "NUL", "a\tb": "tab",
		"a\x1bb": "control character", "a\u2028b": "control character", " xyz": "whitespace",
		"xyz ": "whitespace", `"quoted"`: "quotes", "'q'": "quotes", "bad\xffutf8": "UTF-8",
		// oslo.config strips a quote at both ends when the first and last
		// characters are the same quote, so one quote alone reads back empty.
		`"`: "lone quote", "'": "lone quote", `""`: "quotes",
		"a\ufeffb": "U+FEFF", "\x1cdebug": "U+001C",
	}
	for v, want := range bad {
		p := ValueProblem(v)
		assert.Contains(t, p, want, "%q", v)
		assert.NotContains(t, p, v, "the problem never repeats the value")
	}
}

// TestLineBreak: the two characters the reference refuses in its own
// words, and no other control character.
func TestLineBreak(t *testing.T) {
	for _, v := range []string{"a\nb", "a\rb", "\n", "a\r\n"} {
		assert.True(t, LineBreak(v), "%q", v)
	}
	for _, v := range []string{"a b", "a\tb", "a\u2028b", "a\x00b", ""} {
		assert.False(t, LineBreak(v), "%q", v)
	}
}
