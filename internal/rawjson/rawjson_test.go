package rawjson

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestField(t *testing.T) {
	cases := map[string]struct {
		reason string
		obj    string
		name   string
		want   string
		res    Result
	}{
		"Found":         {"a plain key", `{"a":1,"data":{"k":"v"},"z":[1,2]}`, "data", `{"k":"v"}`, Found},
		"Spaces":        {"blanks around keys and values", " { \"data\" :\t[ 1 , \"]\" ]\n} ", "data", `[ 1 , "]" ]`, Found},
		"Absent":        {"no such key", `{"a":1}`, "data", ``, Absent},
		"Empty":         {"an empty object", `{}`, "data", ``, Absent},
		"Null":          {"null is a value like any other", `{"data":null}`, "data", `null`, Found},
		"Twice":         {"encoding/json takes the last, or merges objects", `{"data":1,"data":2}`, "data", ``, Unsure},
		"Folded":        {"encoding/json matches a key case-insensitively", `{"Data":1}`, "data", ``, Unsure},
		"Escaped":       {"a key with escapes may spell the name", `{"d\u0061ta":1}`, "data", ``, Unsure},
		"NonASCII":      {"some non-ASCII letters fold to ASCII ones", `{"ſ":1}`, "s", ``, Unsure},
		"NotObject":     {"an array is no object", `[1]`, "data", ``, Unsure},
		"String":        {"a string is no object", `"data"`, "data", ``, Unsure},
		"QuoteInString": {"an escaped quote does not end a string", `{"a":"x\"}\\","data":true}`, "data", `true`, Found},
		"Backslashes":   {"an even run of backslashes ends the string", `{"a":"\\\\","data":false}`, "data", `false`, Found},
		"Nested":        {"a member of a nested object is not the object's", `{"x":{"data":1}}`, "data", ``, Absent},
		"Cut":           {"a cut object is not read", `{"data":{"k":"v"}`, "data", ``, Unsure},
		"Trailing":      {"anything after the object", `{"data":1} x`, "data", ``, Unsure},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, res := Field([]byte(tc.obj), tc.name)
			if res != tc.res || string(got) != tc.want {
				t.Errorf("%s\nField(%s, %q) = %s, %v; want %s, %v", tc.reason, tc.obj, tc.name, got, res, tc.want, tc.res)
			}
		})
	}
}

func TestPath(t *testing.T) {
	cases := map[string]struct {
		reason string
		obj    string
		want   string
		res    Result
	}{
		"Found":       {"every object on the way", `{"a":{"b":{"c":[1]}}}`, `[1]`, Found},
		"NullOnWay":   {"null leaves a struct unset", `{"a":null}`, ``, Absent},
		"MissingLeaf": {"a missing leaf", `{"a":{"b":{}}}`, ``, Absent},
		"NullLeaf":    {"null at the end is no value", `{"a":{"b":{"c":null}}}`, ``, Absent},
		"NotObject":   {"a string where an object is wanted fails encoding/json", `{"a":"b"}`, ``, Unsure},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, res := Path([]byte(tc.obj), "a", "b", "c")
			if res != tc.res || string(got) != tc.want {
				t.Errorf("%s\nPath(%s) = %s, %v; want %s, %v", tc.reason, tc.obj, got, res, tc.want, tc.res)
			}
		})
	}
}

func TestMembers(t *testing.T) {
	type member struct {
		Key   string
		Plain bool
		Value string
	}
	var got []member
	ok := Members([]byte(`{"a":"x","b\n":{"c":[true,null]},"d":-1.5e3}`), func(k []byte, plain bool, v []byte) bool {
		got = append(got, member{string(k), plain, string(v)})
		return true
	})
	want := []member{{"a", true, `"x"`}, {`b\n`, false, `{"c":[true,null]}`}, {"d", true, `-1.5e3`}}
	if !ok {
		t.Fatal("a whole object is read to its end")
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("every member in order, keys as written: -want, +got:\n%s", diff)
	}
	n := 0
	Members([]byte(`{"a":1,"b":2}`), func([]byte, bool, []byte) bool { n++; return false })
	if n != 1 {
		t.Errorf("fn returning false stops the walk; called %d times", n)
	}
}

func TestStringBytes(t *testing.T) {
	cases := map[string]struct {
		reason string
		v      string
		want   string
		ok     bool
	}{
		"Plain":   {"no escapes: the bytes between the quotes", `"aGVsbG8="`, "aGVsbG8=", true},
		"Empty":   {"the empty string", `""`, "", true},
		"Escape":  {"an escape needs decoding", `"a\nb"`, "", false},
		"BadUTF8": {"encoding/json replaces invalid UTF-8", "\"\xff\"", "", false},
		"Number":  {"a number is no string", `12`, "", false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, ok := StringBytes([]byte(tc.v))
			if ok != tc.ok || string(got) != tc.want {
				t.Errorf("%s\nStringBytes(%s) = %q, %v; want %q, %v", tc.reason, tc.v, got, ok, tc.want, tc.ok)
			}
		})
	}
}

// FuzzField holds Field and StringBytes to encoding/json: whatever they say
// they found in valid JSON is what encoding/json decodes into a struct
// field, and what they call absent it leaves unset.
func FuzzField(f *testing.F) {
	for _, s := range []string{`{"data":"x"}`, `{"Data":"x","data":"y"}`, `{"data":"a\"b","x":{"data":1}}`,
		`{"dat\u0061":"x"}`, `{"data":null}`, `[]`, `{"a":[{"data":"x"}],"data":"\u00e9"}`, `{"DATA":1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, obj []byte) {
		if !json.Valid(obj) {
			return // the package reads valid JSON only
		}
		var want struct {
			Data *json.RawMessage `json:"data"`
		}
		wantErr := json.Unmarshal(obj, &want)
		got, res := Field(obj, "data")
		switch res {
		case Found:
			if wantErr != nil || want.Data == nil && !IsNull(got) {
				t.Fatalf("Field found %s in %s; encoding/json: %v, %v", got, obj, want.Data, wantErr)
			}
			if want.Data != nil && !jsonEqual(t, got, *want.Data) {
				t.Fatalf("Field found %s in %s; encoding/json %s", got, obj, *want.Data)
			}
			if s, ok := StringBytes(got); ok {
				var ws string
				if err := json.Unmarshal(got, &ws); err != nil || ws != string(s) {
					t.Fatalf("StringBytes(%s) = %q; encoding/json %q, %v", got, s, ws, err)
				}
			}
		case Absent:
			if wantErr == nil && want.Data != nil {
				t.Fatalf("Field found nothing in %s; encoding/json %s", obj, *want.Data)
			}
		}
	})
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return cmp.Equal(x, y)
}
