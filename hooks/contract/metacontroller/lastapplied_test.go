package metacontroller

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAsLastAppliedReturnsTheRecord(t *testing.T) {
	observed := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","uid":"u","resourceVersion":"7",
	  "annotations":{"metacontroller.k8s.io/last-applied-configuration":"{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c\"},\"data\":{\"k\":\"v\"},\"x-unknown\":{\"kept\":true}}"}},
	  "data":{"k":"v"}}`
	got, err := AsLastApplied(json.RawMessage(observed))
	require.NoError(t, err)
	assert.JSONEq(t, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"k":"v"},"x-unknown":{"kept":true}}`, string(got),
		"fields this service does not know survive")
}

func TestAsLastAppliedWithoutRecordDropsServerFields(t *testing.T) {
	observed := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","uid":"u","resourceVersion":"7","managedFields":[],
	  "ownerReferences":[{"uid":"p"}],"creationTimestamp":"2026-01-01T00:00:00Z","labels":{"a":"b"}},"data":{"k":"v"},"status":{"x":1}}`
	got, err := AsLastApplied(json.RawMessage(observed))
	require.NoError(t, err)
	assert.JSONEq(t, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","labels":{"a":"b"}},"data":{"k":"v"}}`, string(got))
}

func TestAsLastAppliedRejectsGarbage(t *testing.T) {
	_, err := AsLastApplied(json.RawMessage(`[1]`))
	assert.Error(t, err)
	_, err = AsLastApplied(json.RawMessage(`{"metadata":{"annotations":{"metacontroller.k8s.io/last-applied-configuration":"{"}}}`))
	assert.Error(t, err)
}

// The record read where it is written is the record the whole object's
// decode finds; where the reader cannot tell (a key in another case, a key
// given twice, escapes in a key) the object is decoded whole, so the
// answer is the same there too.
func TestAsLastAppliedReadsTheRecordInPlace(t *testing.T) {
	const key = `"metacontroller.k8s.io/last-applied-configuration"`
	cases := map[string]struct {
		reason   string
		observed string
	}{
		"Plain": {"the common case: the record is the only annotation",
			`{"metadata":{"annotations":{` + key + `:"{\"kind\":\"Job\",\"b\":1,\"a\":[1.5e3,\"x\"]}"}},"spec":{"x":1}}`},
		"EscapesAndUnicode": {"escapes inside the record are decoded as encoding/json decodes them",
			`{"metadata":{"annotations":{` + key + `:"{\"m\":\"\\u00e9 \\n \\u2028 \\ud83d\\ude00\"}"}}}`},
		"KeyTwice": {"the last of two records wins in a map; the reader declines and the whole decode says so",
			`{"metadata":{"annotations":{` + key + `:"{\"a\":1}",` + key + `:"{\"a\":2}"}}}`},
		"MetadataInOtherCase": {"a map key matches exactly: Metadata is not metadata",
			`{"Metadata":{"annotations":{` + key + `:"{\"a\":1}"}},"metadata":{"name":"n","uid":"u"}}`},
		"EscapedKey": {"an escaped key may spell the annotation",
			`{"metadata":{"annotations":{"metacontroller.k8s.io\/last-applied-configuration":"{\"a\":1}"}}}`},
		"EmptyRecord": {"an empty record counts as none",
			`{"metadata":{"name":"n","uid":"u","annotations":{` + key + `:""}},"status":{}}`},
		"RecordNotAString": {"a record that is no string counts as none",
			`{"metadata":{"name":"n","annotations":{` + key + `:{"a":1}}}}`},
		"NoRecord": {"without a record the server fields are dropped",
			`{"metadata":{"name":"n","uid":"u"},"status":{"x":1}}`},
		"Null": {"a listed name that is null stays null", `null`},
		"BadRecord": {"a record that is not JSON is an error either way",
			`{"metadata":{"annotations":{` + key + `:"{"}}}`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			want, wantErr := decodedAsLastApplied(json.RawMessage(tc.observed))
			got, err := AsLastApplied(json.RawMessage(tc.observed))
			assert.Equal(t, wantErr, err, tc.reason)
			assert.Equal(t, string(want), string(got), tc.reason)
		})
	}
}
