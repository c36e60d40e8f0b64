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
