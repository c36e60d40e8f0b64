package rawjson

import (
	"encoding/json"
	"testing"
)

// samePickAsStd fails unless PickStrings, where it answers, gives what
// encoding/json decodes into a map[string]string, and answers for every
// object of strings with plain keys; it returns whether it answered.
func samePickAsStd(t *testing.T, obj string, keys ...string) bool {
	t.Helper()
	got, ok := PickStrings([]byte(obj), keys...)
	var m map[string]string
	err := json.Unmarshal([]byte(obj), &m)
	if ok && err != nil {
		t.Fatalf("%s: picked %q where encoding/json fails: %v", obj, got, err)
	}
	if !ok {
		return false
	}
	for i, k := range keys {
		if got[i] != m[k] {
			t.Fatalf("%s: %q is %q, encoding/json %q", obj, k, got[i], m[k])
		}
	}
	return true
}

func TestPickStrings(t *testing.T) {
	cases := map[string]bool{
		`{"a":"1","b":"x","c":"{\"k\":\"v\"}"}`:   true,
		`{"b":"1","b":"2"}`:                       true,
		`{"a":null,"b":null}`:                     true,
		`{"a":"1","a":null}`:                      true,
		`{"A":"upper","a":"lower"}`:               true,
		"{\"a\":\"\\u00e9\\n\",\"b\":\"a\xffb\"}": true,
		` { "a" : "1" } `:                         true,
		`{}`:                                      true,
		`null`:                                    true,
		`{"\u0061":"escaped key"}`:                false,
		`{"c":1}`:                                 false,
		`{"a":{"x":"y"}}`:                         false,
		`{"c":["x"]}`:                             false,
		`["a"]`:                                   false,
		`"a"`:                                     false,
		`{"a":"1"} x`:                             false,
	}
	for obj, answers := range cases {
		if got := samePickAsStd(t, obj, "a", "b"); got != answers {
			t.Errorf("%s: answered %v, want %v", obj, got, answers)
		}
	}
}

// FuzzPickStrings holds PickStrings to encoding/json on valid JSON.
func FuzzPickStrings(f *testing.F) {
	for _, s := range []string{`{"a":"1","b":"2"}`, `{"a":null}`, `{"a":"\"q\""}`, `null`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, obj string) {
		if !json.Valid([]byte(obj)) {
			return // callers read valid JSON only
		}
		samePickAsStd(t, obj, "a", "b")
	})
}
