package metacontroller

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// TestReadStringsAsDecodingWhole holds ReadStrings to what decoding the
// whole object as stringMaps gives, the error included, for objects it
// reads by picking members and for those it decodes whole.
func TestReadStringsAsDecodingWhole(t *testing.T) {
	keys := StringKeys{Labels: []string{"l"}, Annotations: []string{"a/id", "a/hash", "a/digest"}, Data: []string{"d"}}
	const meta = `"labels":{"l":"glance","other":"x"},` +
		`"ownerReferences":[{"apiVersion":"v","kind":"GlanceBackend","name":"b","uid":"u","controller":true}]`
	cases := map[string]struct {
		obj    string
		picked bool // read without decoding a map whole
	}{
		"Plain": {`{"metadata":{` + meta + `,"annotations":{"a/id":"s","a/hash":"h","a/digest":"d",` +
			`"metacontroller.k8s.io/last-applied-configuration":"{\"a\":\"b\"}"}},"data":{"d":"W3NdCg=="}}`, true},
		"Nulls":          {`{"metadata":{"labels":null,"annotations":null},"data":null}`, true},
		"NullValues":     {`{"metadata":{"annotations":{"a/id":null}},"data":{"d":null}}`, true},
		"Empty":          {`{}`, true},
		"Twice":          {`{"metadata":{"annotations":{"a/id":"a","a/id":"b"}}}`, true},
		"EscapedValue":   {`{"metadata":{"annotations":{"a/id":"s\u0031"}}}`, true},
		"CaseOfKey":      {`{"metadata":{"annotations":{"A/id":"s"}}}`, true},
		"EscapedKey":     {`{"metadata":{"annotations":{"a\/id":"s"}}}`, false},
		"FoldedField":    {`{"Metadata":{"annotations":{"a/id":"s"}}}`, false},
		"MapTwice":       {`{"metadata":{"labels":{"l":"x"},"labels":{"other":"y"}}}`, false},
		"NumberLabel":    {`{"metadata":{"labels":{"other":1}}}`, false},
		"NumberData":     {`{"data":{"other":1}}`, false},
		"ListAnnotation": {`{"metadata":{"annotations":["x"]}}`, false},
		"BadOwner":       {`{"metadata":{"ownerReferences":[{"controller":"yes"}]}}`, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if !json.Valid([]byte(tc.obj)) {
				t.Fatalf("not JSON: %s", tc.obj)
			}
			if _, picked := pickStrings([]byte(tc.obj), keys); picked != tc.picked {
				t.Errorf("read by picking members: %v, want %v", picked, tc.picked)
			}
			m := ObjectMap{"Secret.v1": {"x": json.RawMessage(tc.obj)}}
			got, found, gotErr := m.ReadStrings("Secret.v1", "x", keys)
			whole, _, wantErr := DecodeOne[stringMaps](m, "Secret.v1", "x")
			if !found {
				t.Fatal("not found")
			}
			if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
				t.Fatalf("error %v, decoded whole %v", gotErr, wantErr)
			}
			if wantErr != nil {
				return
			}
			want := ObjectStrings{
				Labels:          values(whole.Metadata.Labels, keys.Labels),
				Annotations:     values(whole.Metadata.Annotations, keys.Annotations),
				Data:            values(whole.Data, keys.Data),
				OwnerReferences: whole.Metadata.OwnerReferences,
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("got %+v, decoded whole %+v", got, want)
			}
		})
	}
	for _, m := range []ObjectMap{{}, {"Secret.v1": {"x": json.RawMessage("null")}}} {
		if _, found, err := m.ReadStrings("Secret.v1", "x", keys); found || err != nil {
			t.Errorf("an absent object: found %v, %v", found, err)
		}
	}
}

// TestDataMemberReadsWhatDecodingHolds holds the one-member reader to the
// decoding it stands in for: where it answers, secretData decodes to the
// same value; where it cannot tell, SecretData decodes secretData.
func TestDataMemberReadsWhatDecodingHolds(t *testing.T) {
	const member = "backends.conf"
	cases := map[string]struct {
		reason string
		secret string
		ok     bool
	}{
		"Plain":        {"the key among others", `{"apiVersion":"v1","data":{"a":"eA==","backends.conf":"W2Fd","z":null},"metadata":{"name":"s"}}`, true},
		"NoData":       {"a Secret without data holds no member", `{"metadata":{"name":"s"}}`, true},
		"NullData":     {"null data is no data", `{"data":null}`, true},
		"NullValue":    {"a null value decodes to the empty string", `{"data":{"backends.conf":null}}`, true},
		"LastWins":     {"a key given twice: the last value", `{"data":{"backends.conf":"eA==","backends.conf":"W2Fd"}}`, true},
		"EscapedKey":   {"an escaped key may be the member's", `{"data":{"backends\u002econf":"W2Fd"}}`, false},
		"EscapedValue": {"an escaped value needs decoding", `{"data":{"backends.conf":"W2\u0046d"}}`, false},
		"NumberValue":  {"a value secretData cannot hold fails its decoding", `{"data":{"other":1,"backends.conf":"W2Fd"}}`, false},
		"DataString":   {"data that is no object fails its decoding", `{"data":"x"}`, false},
		"FoldedData":   {"a key encoding/json takes for data", `{"Data":{"backends.conf":"W2Fd"}}`, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, ok := dataMember([]byte(tc.secret), member)
			if ok != tc.ok {
				t.Fatalf("%s: dataMember(%s) ok = %v, want %v", tc.reason, tc.secret, ok, tc.ok)
			}
			var want secretData
			wantErr := json.Unmarshal([]byte(tc.secret), &want)
			m := ObjectMap{"Secret.v1": {"s": json.RawMessage(tc.secret)}}
			read, found, err := m.SecretData("Secret.v1", "s", member)
			if !found || (err == nil) != (wantErr == nil) {
				t.Fatalf("%s: SecretData found %v, error %v; decoding: %v", tc.reason, found, err, wantErr)
			}
			if wantErr == nil && string(read) != want.Data[member] {
				t.Errorf("%s: SecretData = %q, secretData holds %q", tc.reason, read, want.Data[member])
			}
			if !ok {
				return
			}
			if wantErr != nil {
				t.Fatalf("%s: dataMember answered for a Secret secretData cannot hold: %v", tc.reason, wantErr)
			}
			if string(got) != want.Data[member] {
				t.Errorf("%s: dataMember = %q, secretData holds %q", tc.reason, got, want.Data[member])
			}
		})
	}
	if _, found, err := (ObjectMap{}).SecretData("Secret.v1", "s", member); found || err != nil {
		t.Errorf("an absent Secret: found %v, %v", found, err)
	}
}

// TestCreationTimestamp reads the time as decoding the whole metadata
// does, and fails where that decoding fails.
func TestCreationTimestamp(t *testing.T) {
	m := ObjectMap{"ConfigMap.v1": {
		"a":    json.RawMessage(`{"metadata":{"name":"a","creationTimestamp":"2026-01-02T03:04:05Z"}}`),
		"none": json.RawMessage(`{"metadata":{"name":"none"}}`),
		"bad":  json.RawMessage(`{"metadata":{"labels":{"x":1},"creationTimestamp":"2026-01-02T03:04:05Z"}}`),
	}}
	if got, err := m.CreationTimestamp("ConfigMap.v1", "a"); err != nil || !got.Time.Equal(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)) {
		t.Errorf("a: %v, %v", got, err)
	}
	if got, err := m.CreationTimestamp("ConfigMap.v1", "none"); err != nil || !got.IsZero() {
		t.Errorf("none: %v, %v", got, err)
	}
	if _, err := m.CreationTimestamp("ConfigMap.v1", "bad"); err == nil {
		t.Error("bad: metadata that does not decode read as a time")
	}
}
