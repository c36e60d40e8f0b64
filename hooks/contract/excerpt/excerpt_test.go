package excerpt

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestQuote(t *testing.T) {
	cases := map[string]struct{ in, want string }{
		"short":             {"glance", `"glance"`},
		"control and NUL":   {"a\x00\x1b[31m\n", `"a\x00\x1b[31m\n"`},
		"non-ASCII escaped": {"é\u2028\ufeff", `"\u00e9\u2028\ufeff"`},
		"cut":               {strings.Repeat("x", 40), `"` + strings.Repeat("x", MaxValue) + `"... (40 bytes)`},
		"cut on a boundary": {strings.Repeat("x", MaxValue-1) + "é", `"` + strings.Repeat("x", MaxValue-1) + `"... (33 bytes)`},
	}
	for name, tc := range cases {
		assert.Equal(t, tc.want, Value(tc.in), name)
	}
	assert.Len(t, Name(strings.Repeat("n", 10000)), MaxName+2+len("... (10000 bytes)"))
	assert.Equal(t, `a\nb`, Bare("a\nb"))
	assert.Equal(t, `xxx`+`... (70 bytes)`, Bare(strings.Repeat("x", 70))[MaxKind-3:])
}

func TestJSONErrorQuotesNoValue(t *testing.T) {
	var v struct {
		N int               `json:"n"`
		M map[string]int    `json:"m"`
		T time.Time         `json:"t"`
		S []json.RawMessage `json:"s"`
	}
	secret := "s3cr3t-" + strings.Repeat("k", 100)
	for body, want := range map[string]string{
		`{"n": 1e999}`:                   "field n must be int, got JSON number",
		`{"n": "` + secret + `"}`:        "field n must be int, got JSON string",
		`{"m": {"` + secret + `": "x"}}`: "must be int, got JSON string",
		`{"t": "` + secret + `"}`:        "a time is not in RFC 3339 form",
		`{"n": 1`:                        "malformed JSON at byte 7",
		`{"n": ` + secret + `}`:          "malformed JSON at byte",
	} {
		err := json.Unmarshal([]byte(body), &v)
		got := JSONError(err)
		assert.Contains(t, got, want, body)
		assert.NotContains(t, got, "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk", body)
		assert.NotContains(t, got, "1e999", body)
	}
}

func TestToken(t *testing.T) {
	assert.Equal(t, "glance.openstack.c5c3.io/v1alpha1", Token("glance.openstack.c5c3.io/v1alpha1", MaxKind))
	assert.Equal(t, `"a b"`, Token("a b", MaxKind))
	assert.Equal(t, `""`, Token("", MaxKind))
	assert.Equal(t, `"x\x1b[0m"`, Token("x\x1b[0m", MaxKind))
	assert.True(t, strings.HasPrefix(Token(strings.Repeat("a", 300), MaxName), `"aaa`))
}
