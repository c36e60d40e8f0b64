package metacontroller

import (
	"encoding/json"
	"unicode/utf8"

	"github.com/c5c3/glance-hooks/hooks/contract/rawjson"
)

// ParseSyncRequest reads a sync request out of a body that rawjson.Scan
// found valid, exactly as encoding/json's Unmarshal into a SyncRequest
// would, without copying its objects: parent, controller and every object
// are slices of body (capped, so appending to one never writes into the
// body), which must then stay unchanged while the request is in use. ok is
// false where only encoding/json can tell what the body holds (see
// rawjson) or would fail; the caller then decodes it with encoding/json.
func ParseSyncRequest(body []byte) (req *SyncRequest, ok bool) {
	req = &SyncRequest{}
	var seen [5]bool
	exact := true
	whole := rawjson.Members(body, func(key []byte, plain bool, v []byte) bool {
		i, known := rawjson.Match(key, plain, "controller", "parent", "children", "related", "finalizing")
		switch {
		case !known:
			exact = false
		case i < 0:
			return true
		case seen[i]:
			exact = false // given twice: encoding/json merges the maps
		default:
			seen[i] = true
			switch i {
			case 0:
				req.Controller = capped(v)
			case 1:
				req.Parent = capped(v)
			case 2:
				req.Children, exact = parseObjectMap(v)
			case 3:
				req.Related, exact = parseObjectMap(v)
			case 4:
				switch string(v) {
				case "true":
					req.Finalizing = true
				case "false", "null":
				default:
					exact = false
				}
			}
		}
		return exact
	})
	return req, whole && exact
}

// ParseCustomizeRequest is ParseSyncRequest for a customize request.
func ParseCustomizeRequest(body []byte) (req *CustomizeRequest, ok bool) {
	req = &CustomizeRequest{}
	var seen [2]bool
	exact := true
	whole := rawjson.Members(body, func(key []byte, plain bool, v []byte) bool {
		i, known := rawjson.Match(key, plain, "controller", "parent")
		switch {
		case !known:
			exact = false
		case i < 0:
		case seen[i]:
			exact = false
		case i == 0:
			seen[i], req.Controller = true, capped(v)
		default:
			seen[i], req.Parent = true, capped(v)
		}
		return exact
	})
	return req, whole && exact
}

// parseObjectMap reads "<Kind>.<apiVersion>" -> name -> object as
// encoding/json decodes an ObjectMap: null is no map, a key given twice
// keeps its last value.
func parseObjectMap(v []byte) (ObjectMap, bool) {
	if rawjson.IsNull(v) {
		return nil, true
	}
	m := ObjectMap{}
	exact := true
	whole := rawjson.Members(v, func(key []byte, plain bool, objs []byte) bool {
		if exact = plainKey(key, plain); !exact {
			return false
		}
		if rawjson.IsNull(objs) {
			m[string(key)] = nil
			return true
		}
		byName := map[string]json.RawMessage{}
		whole := rawjson.Members(objs, func(name []byte, plain bool, obj []byte) bool {
			if exact = plainKey(name, plain); exact {
				byName[string(name)] = capped(obj)
			}
			return exact
		})
		exact = exact && whole
		m[string(key)] = byName
		return exact
	})
	return m, whole && exact
}

// plainKey reports whether encoding/json decodes a map key to its bytes as
// written: no escapes, valid UTF-8.
func plainKey(key []byte, plain bool) bool { return plain && utf8.Valid(key) }

// capped is v with no room to append into what follows it.
func capped(v []byte) json.RawMessage { return json.RawMessage(v[:len(v):len(v)]) }
