package hook

import (
	"encoding/base64"

	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
)

// SecretData reads a related Secret's data, each value decoded. A value
// that is not base64 is left out, as if the key were missing: whoever
// reads it reports the key, never the value. found is false when the
// Secret is not among the related objects.
func SecretData(related metacontroller.ObjectMap, name string) (data map[string]string, found bool, err error) {
	sec, found, err := metacontroller.DecodeOne[struct {
		Data map[string]string `json:"data"`
	}](related, names.SecretsKey, name)
	if err != nil {
		return nil, false, Invalid("related %v", err)
	}
	if !found {
		return nil, false, nil
	}
	data = make(map[string]string, len(sec.Data))
	for k, enc := range sec.Data {
		if b, err := base64.StdEncoding.DecodeString(enc); err == nil {
			data[k] = string(b)
		}
	}
	return data, true, nil
}
