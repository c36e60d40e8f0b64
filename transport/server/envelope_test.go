package server

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
)

// decodeEnvelope takes json.Unmarshal's path for a body that is one JSON
// value and the decoder's otherwise: what it accepts, what it decodes and
// what its errors say must not depend on which path ran.
func TestDecodeEnvelopeBothPaths(t *testing.T) {
	var req metacontroller.SyncRequest
	require.NoError(t, decodeEnvelope([]byte(" {\"parent\":{\"kind\":\"A\"},\"children\":{\"Secret.v1\":{\"s\":{}}}}\n"), &req, "sync"))
	assert.JSONEq(t, `{"kind":"A"}`, string(req.Parent))
	assert.Len(t, req.Children["Secret.v1"], 1)

	// The decoder reads one value and accepts a closing bracket after it.
	req = metacontroller.SyncRequest{}
	require.NoError(t, decodeEnvelope([]byte(`{"parent":{"kind":"B"},"children":{"Secret.v1":{}}} ]`), &req, "sync"))
	assert.JSONEq(t, `{"kind":"B"}`, string(req.Parent))
	assert.Empty(t, req.Children["Secret.v1"], "nothing is left from the failed first attempt")

	for body, msg := range map[string]string{
		`{"parent":{}} {}`:             "unexpected data after the JSON object",
		`{"parent": {`:                 "truncated JSON",
		`{"parent": x}`:                "malformed JSON at byte",
		`{"parent":{},"children":[]}`:  "field children",
		`{"parent":{},"finalizing":1}`: "field finalizing",
	} {
		req = metacontroller.SyncRequest{}
		err := decodeEnvelope([]byte(body), &req, "sync")
		if assert.Error(t, err, body) {
			assert.Contains(t, err.Error(), msg, body)
			assert.Contains(t, err.Error(), "not a Metacontroller sync request", body)
		}
	}
}
