package contenthash

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestOf(t *testing.T) {
	data := map[string]string{"glance-api.conf": "[DEFAULT]\n", "b": "2"}
	h := Of(data)
	assert.Len(t, h, Length)
	assert.Equal(t, h, Of(map[string]string{"b": "2", "glance-api.conf": "[DEFAULT]\n"}), "map order does not matter")
	assert.Equal(t, "3eec20b33c", Of(map[string]string{"k": "v"}), "the documented algorithm: sha256 over length-framed keys and values")
	// Length framing: moving bytes between key and value changes the hash.
	assert.NotEqual(t, Of(map[string]string{"a": "bc"}), Of(map[string]string{"ab": "c"}))
	assert.NotEqual(t, Of(map[string]string{"a": "b"}), Of(map[string]string{"a": "b", "c": ""}))
	assert.Equal(t, "glance-config-"+h, Name("glance-config", data))
}

// OfOne is Of of the map holding its one key, for any key and value.
func TestOfOneIsOf(t *testing.T) {
	for _, kv := range [][2]string{{"spec", `{"storeId":"a"}`}, {"", ""}, {"k", "v"}, {"a", "bc"}, {"ab", "c"}, {"spec", string(make([]byte, 300))}} {
		assert.Equal(t, Of(map[string]string{kv[0]: kv[1]}), OfOne(kv[0], []byte(kv[1])), "%q", kv)
	}
}
