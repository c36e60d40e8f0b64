package metacontroller

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestDecodeKeepsInPlace holds Decode to decoding each object afresh into
// its place: an object keep refuses leaves nothing behind for the next one
// decoded into the same place, the kept ones come in name order, and an
// object that does not decode is an error naming it.
func TestDecodeKeepsInPlace(t *testing.T) {
	type obj struct {
		Name  string   `json:"name"`
		Skip  bool     `json:"skip"`
		Extra *string  `json:"extra"`
		List  []string `json:"list"`
	}
	m := ObjectMap{"T.v1": {
		"c": json.RawMessage(`{"name":"c"}`),
		"a": json.RawMessage(`{"name":"a","list":["x"]}`),
		"b": json.RawMessage(`{"name":"b","skip":true,"extra":"e","list":["y","z"]}`),
		"d": json.RawMessage(`null`),
	}}
	got, err := Decode(m, "T.v1", func(o *obj) bool { return !o.Skip })
	if err != nil {
		t.Fatal(err)
	}
	want := []obj{{Name: "a", List: []string{"x"}}, {Name: "c"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	m["T.v1"]["b"] = json.RawMessage(`{"name":1}`)
	if _, err := Decode(m, "T.v1", func(*obj) bool { return true }); err == nil || !strings.Contains(err.Error(), "b") {
		t.Errorf("a name that is a number: error %v, want one naming the object", err)
	}
}
