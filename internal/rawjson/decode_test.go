package rawjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
)

// sameAsStd decodes data into a fresh T with Unmarshal and with
// encoding/json and fails unless value and error are the same; it returns
// whether the fast path decoded it.
func sameAsStd[T any](t *testing.T, data []byte) bool {
	t.Helper()
	var got, want T
	fast := Decode(data, new(T))
	gotErr := Unmarshal(data, &got)
	wantErr := json.Unmarshal(data, &want)
	if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
		t.Fatalf("%T from %s: error %v, encoding/json %v", got, data, gotErr, wantErr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%T from %s:\n got %#v\nwant %#v", got, data, got, want)
	}
	return fast
}

type inner struct {
	A string `json:"a"`
	B int    `json:"b,omitempty"`
}

type Embedded struct {
	E string `json:"e"`
	A string `json:"a"` // hidden by the outer a
}

// AmbA and AmbB both promote X at the same depth, neither tagged:
// encoding/json decodes neither.
type AmbA struct{ X string }

type AmbB struct{ X string }

type sample struct {
	Embedded
	Name     string            `json:"name"`
	Count    int32             `json:"count"`
	Big      uint8             `json:"big"`
	Ratio    float64           `json:"ratio"`
	On       bool              `json:"on"`
	Ptr      *inner            `json:"ptr"`
	List     []inner           `json:"list"`
	Labels   map[string]string `json:"labels"`
	Named    namedMap          `json:"named"`
	Raw      json.RawMessage   `json:"raw"`
	Bytes    []byte            `json:"bytes"`
	Any      any               `json:"any"`
	Time     metav1.Time       `json:"time"`
	TimePtr  *metav1.Time      `json:"timePtr"`
	Skipped  string            `json:"-"`
	Untagged string
	hidden   string
	A        string `json:"a"`
}

// namedMap is decoded as a map[string]string is, without reflection.
type namedMap map[string]string

type ambiguous struct {
	AmbA
	AmbB
}

type quoted struct {
	N int `json:"n,string"`
}

func TestUnmarshalAsEncodingJSON(t *testing.T) {
	cases := map[string]struct {
		data string
		fast bool
	}{
		"Full": {`{"name":"n","count":-3,"big":200,"ratio":1.5,"on":true,"ptr":{"a":"x","b":2},"list":[{"a":"1"},{"a":"2"}],` +
			`"labels":{"k":"v","":"e"},"raw":{"x":[1, 2]},"bytes":"aGk=","any":{"a":[1,"b",null]},"time":"2026-01-01T00:00:00Z",` +
			`"timePtr":"2026-01-02T00:00:00Z","Untagged":"u","e":"promoted","a":"outer"}`, true},
		"Nulls":         {`{"name":null,"count":null,"on":null,"ptr":null,"list":null,"labels":null,"raw":null,"time":null,"timePtr":null}`, true},
		"EmptyList":     {`{"list":[],"labels":{}}`, true},
		"LongList":      {`{"list":[{"a":"1"},{"b":2},{"a":"3"},{"a":"4","b":4},{"a":"5"},{},{"a":"7"},{"b":8},{"a":"9"}]}`, true},
		"Unknown":       {`{"status":{"deep":[{"x":"\"}"}]},"name":"n"}`, true},
		"Folded":        {`{"Name":"n"}`, false},
		"Twice":         {`{"name":"a","name":"b"}`, false},
		"TwiceMap":      {`{"labels":{"a":"1"},"labels":{"b":"2"}}`, false},
		"EscapedKey":    {`{"n\u0061me":"n"}`, true},
		"EscapedValue":  {`{"name":"a\nb","labels":{"k":"\u00e9"}}`, true},
		"EscapedMapKey": {`{"labels":{"\u006b":"v"}}`, true},
		"NamedMap":      {`{"named":{"k":"v","k":"last","\u00e9":"\ud83d","e":""}}`, true},
		"MapOfWrong":    {`{"named":{"k":1}}`, false},
		"InvalidUTF8":   {"{\"name\":\"a\xffb\",\"labels\":{\"\xfe\":\"\xc3\"}}", true},
		"IntOverflow":   {`{"count":3000000000}`, false},
		"UintNegative":  {`{"big":-1}`, false},
		"IntFraction":   {`{"count":1.5}`, false},
		"IntExponent":   {`{"count":1e2}`, false},
		"WrongType":     {`{"name":1}`, false},
		"ListOfWrong":   {`{"list":[1]}`, false},
		"BadTime":       {`{"time":"yesterday"}`, false},
		"BadBase64":     {`{"bytes":"!"}`, false},
		"NotObject":     {`[1]`, false},
		"Null":          {`null`, true},
		"Blanks":        {" \n{ \"name\" : \"n\" } ", true},
		"Hidden":        {`{"hidden":"h","Skipped":"s","-":"x"}`, true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if fast := sameAsStd[sample](t, []byte(tc.data)); fast != tc.fast {
				t.Errorf("decoded without encoding/json: %v, want %v", fast, tc.fast)
			}
		})
	}
	var s sample
	if err := Unmarshal([]byte(`{"hidden":"h"}`), &s); err != nil || s.hidden != "" {
		t.Errorf("an unexported field was decoded: %q, %v", s.hidden, err)
	}
	sameAsStd[ambiguous](t, []byte(`{"X":"dropped"}`))
	sameAsStd[quoted](t, []byte(`{"n":"3"}`)) // the string option: encoding/json decodes the struct
	sameAsStd[quoted](t, []byte(`{"n":3}`))
}

// FuzzUnmarshal holds Unmarshal to encoding/json for the types the hooks
// decode, on every fixture object and what the fuzzer makes of them.
func FuzzUnmarshal(f *testing.F) {
	files, _ := filepath.Glob("../../test/fixtures/*/*/request.json")
	if len(files) == 0 {
		f.Fatal("no fixture requests to seed from")
	}
	for _, file := range files {
		raw, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		var req struct {
			Parent   json.RawMessage                       `json:"parent"`
			Children map[string]map[string]json.RawMessage `json:"children"`
			Related  map[string]map[string]json.RawMessage `json:"related"`
		}
		if json.Unmarshal(raw, &req) != nil {
			continue
		}
		f.Add([]byte(req.Parent))
		for _, m := range []map[string]map[string]json.RawMessage{req.Children, req.Related} {
			for _, objs := range m {
				for _, o := range objs {
					f.Add([]byte(o))
				}
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			// The package reads valid JSON only (every caller scans or
			// decodes a body first), but must not panic on anything else.
			var v api.Glance
			_ = Unmarshal(data, &v)
			var m map[string]string
			_ = Unmarshal(data, &m)
			return
		}
		sameAsStd[api.Glance](t, data)
		sameAsStd[api.GlanceBackend](t, data)
		sameAsStd[api.ControlPlane](t, data)
		sameAsStd[appsv1.Deployment](t, data)
		sameAsStd[corev1.Secret](t, data)
		sameAsStd[metav1.PartialObjectMetadata](t, data)
		sameAsStd[sample](t, data)
		sameAsStd[map[string]any](t, data)
	})
}

func TestFallbacksAreCounted(t *testing.T) {
	before, _ := Fallbacks()
	var v struct {
		A int `json:"a"`
	}
	if !Decode([]byte(`{"a": 1}`), &v) {
		t.Fatal("a plain object is decoded")
	}
	if got, _ := Fallbacks(); got != before {
		t.Errorf("a value decoded counts no fallback: %d, was %d", got, before)
	}
	if Decode([]byte(`{"a": "x"}`), &v) {
		t.Fatal("a string for an int is left to encoding/json")
	}
	if got, _ := Fallbacks(); got != before+1 {
		t.Errorf("a value left to encoding/json counts one fallback: %d, was %d", got, before)
	}
}

// atStart is a ValueDecoder that notes where its value starts and steps
// over it; refuse makes it fail.
type atStart struct {
	start  int
	refuse bool
}

func (a *atStart) DecodeJSONAt(data []byte, i int) (int, bool) {
	a.start = i
	end, ok := SkipValue(data, i)
	return end, ok && !a.refuse
}

func (a *atStart) UnmarshalJSON([]byte) error { return errors.New("for Decode only") }

// TestValueDecoderReadsInPlace holds Decode to handing a ValueDecoder the
// start of its value and going on after the end it returns, and to
// failing where it fails.
func TestValueDecoderReadsInPlace(t *testing.T) {
	data := []byte(`{"a": [1, {"x": "]"}], "b": "after"}`)
	var v struct {
		A atStart `json:"a"`
		B string  `json:"b"`
	}
	if !Decode(data, &v) {
		t.Fatal("not decoded")
	}
	if v.A.start != bytes.IndexByte(data, '[') || v.B != "after" {
		t.Errorf("value read at %d, then b %q; want %d and %q", v.A.start, v.B, bytes.IndexByte(data, '['), "after")
	}
	var refused struct {
		A atStart `json:"a"`
	}
	refused.A.refuse = true
	if Decode(data, &refused) {
		t.Error("decoded although the ValueDecoder failed")
	}
}

// TestSlicesMadeOfTheirLength holds the slice decoder to a slice of the
// array's length, once (no room left over from growing it), to an empty
// slice for an empty array, and to arrays of a type nested in an item of
// the same type, which decode with a kept slice each.
func TestSlicesMadeOfTheirLength(t *testing.T) {
	type node struct {
		N    int    `json:"n"`
		Kids []node `json:"kids"`
	}
	var v struct {
		Five  []int    `json:"five"`
		Empty []string `json:"empty"`
		Tree  []node   `json:"tree"`
	}
	data := []byte(`{"five":[1,2,3,4,5],"empty":[],"tree":[{"n":1,"kids":[{"n":2},{"n":3,"kids":[{"n":4}]}]},{"n":5}]}`)
	if !Decode(data, &v) {
		t.Fatal("not decoded")
	}
	if len(v.Five) != 5 || cap(v.Five) != 5 {
		t.Errorf("five items: len %d cap %d, want 5 and 5", len(v.Five), cap(v.Five))
	}
	if v.Empty == nil || len(v.Empty) != 0 {
		t.Errorf("empty array: %#v, want an empty slice", v.Empty)
	}
	want := []node{{N: 1, Kids: []node{{N: 2}, {N: 3, Kids: []node{{N: 4}}}}}, {N: 5}}
	if !reflect.DeepEqual(v.Tree, want) {
		t.Errorf("nested: %+v, want %+v", v.Tree, want)
	}
	sameAsStd[struct {
		Tree []node `json:"tree"`
	}](t, data)
}
