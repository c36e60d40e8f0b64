package metacontroller

import (
	"encoding/json"

	"github.com/c5c3/glance-hooks/internal/rawjson"
)

// MemberAt reads the JSON under path in an object of a request, member by
// member where it is written, without decoding the rest (a Glance's status
// lists every backend): what decoding each object on the way into a
// map[string]json.RawMessage would give, nil where a member is missing or
// null on the way. sure is false where it cannot tell what that decode
// makes of the object (a key given twice or in another case, escapes, a
// value on the way that is no object): the caller decodes it then. The
// object must be valid JSON, as every object of a request is.
func MemberAt(object []byte, path ...string) (raw json.RawMessage, sure bool) {
	cur := object
	for i, p := range path {
		v, res := rawjson.Field(cur, p)
		switch {
		case res == rawjson.Unsure:
			return nil, false
		case res == rawjson.Absent, i < len(path)-1 && rawjson.IsNull(v):
			return nil, true
		}
		cur = v
	}
	return cur, true
}
