package rawjson

import (
	"bytes"
	"encoding/json"
	"testing"
)

func checkString(t *testing.T, v []byte) {
	t.Helper()
	var want string
	wantErr := json.Unmarshal(v, &want)
	got, ok := String(v)
	if ok != (wantErr == nil) || ok && got != want {
		t.Fatalf("String(%q) = %q, %v; encoding/json %q, %v", v, got, ok, want, wantErr)
	}
}

func TestString(t *testing.T) {
	for _, s := range []string{`""`, `"plain"`, `"a\"b\\c\/d\b\f\n\r\t"`, `"\u00e9\u20AC"`, `"\ud83d\ude00"`, `"\ud83d"`,
		`"\ud83dx"`, `"\ude00\ud83d"`, `"\ud83d\u0041"`, "\"\xff\xfe\"", "\"é\xc3\"", `"\u12"`, `"\x"`, `"\'"`} {
		checkString(t, []byte(s))
	}
}

// FuzzString holds String to encoding/json on every valid JSON string.
func FuzzString(f *testing.F) {
	f.Add([]byte(`"a\u00e9\ud83d\ude00\n"`))
	f.Add([]byte("\"\xed\xa0\x80\""))
	f.Fuzz(func(t *testing.T, v []byte) {
		if v = bytes.TrimSpace(v); json.Valid(v) && len(v) > 0 && v[0] == '"' {
			checkString(t, v) // a value as Members gives it: no blanks around
		}
	})
}
