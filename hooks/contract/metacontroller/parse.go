package metacontroller

import (
	"bytes"
	"encoding/json"

	"github.com/c5c3/glance-hooks/internal/rawjson"
)

// ParseSyncRequest reads a sync request out of a body that rawjson.Scan
// found valid, exactly as encoding/json's Unmarshal into a SyncRequest
// would, without copying its objects: parent, controller and every object
// are slices of body (capped, so appending to one never writes into the
// body), which must then stay unchanged while the request is in use. ok is
// false where only encoding/json can tell what the body holds (see
// rawjson) or would fail; the caller then decodes it with encoding/json.
func ParseSyncRequest(body []byte) (req *SyncRequest, ok bool) {
	return ParseSyncRequestWith(body, nil)
}

// ParseSyncRequestWith is ParseSyncRequest of a body rawjson.ScanEnds
// scanned: the parent and every object are stepped over by the ends it
// kept, not read again.
func ParseSyncRequestWith(body []byte, ends *rawjson.Ends) (req *SyncRequest, ok bool) {
	req = &SyncRequest{}
	var seen [5]bool
	end, ok := rawjson.WalkObject(body, space(body), func(key []byte, plain bool, start int) (int, bool) {
		i, exact := rawjson.Match(key, plain, "controller", "parent", "children", "related", "finalizing")
		switch {
		case !exact:
			return start, false
		case i < 0:
			return ends.Skip(body, start)
		case seen[i]:
			return start, false // given twice: encoding/json merges the maps
		}
		seen[i] = true
		switch i {
		case 2:
			return objectMapAt(body, start, &req.Children, ends)
		case 3:
			return objectMapAt(body, start, &req.Related, ends)
		}
		end, ok := ends.Skip(body, start)
		v := body[start:end]
		switch i {
		case 0:
			req.Controller = capped(v)
		case 1:
			req.Parent = capped(v)
		case 4:
			switch string(v) {
			case "true":
				req.Finalizing = true
			case "false", "null":
			default:
				ok = false
			}
		}
		return end, ok
	})
	return req, ok && rest(body, end)
}

// ParseCustomizeRequest is ParseSyncRequest for a customize request.
func ParseCustomizeRequest(body []byte) (req *CustomizeRequest, ok bool) {
	return ParseCustomizeRequestWith(body, nil)
}

// ParseCustomizeRequestWith is ParseSyncRequestWith for a customize
// request.
func ParseCustomizeRequestWith(body []byte, ends *rawjson.Ends) (req *CustomizeRequest, ok bool) {
	req = &CustomizeRequest{}
	var seen [2]bool
	end, ok := rawjson.WalkObject(body, space(body), func(key []byte, plain bool, start int) (int, bool) {
		i, exact := rawjson.Match(key, plain, "controller", "parent")
		switch {
		case !exact:
			return start, false
		case i < 0:
			return ends.Skip(body, start)
		case seen[i]:
			return start, false
		}
		seen[i] = true
		end, ok := ends.Skip(body, start)
		if i == 0 {
			req.Controller = capped(body[start:end])
		} else {
			req.Parent = capped(body[start:end])
		}
		return end, ok
	})
	return req, ok && rest(body, end)
}

// objectMapAt reads the value at data[start] into *m as encoding/json
// decodes an ObjectMap, "<Kind>.<apiVersion>" -> name -> object: null is no
// map, a key given twice keeps its last value. Each object is stepped over
// once, to find its end, or its end is looked up in ends. Keys are strings
// in data's memory, as the objects are slices of it (rawjson.MapKeyString):
// a request relates thousands of objects, each name a copy otherwise.
func objectMapAt(data []byte, start int, m *ObjectMap, ends *rawjson.Ends) (int, bool) {
	if rawjson.IsNull(data[start:min(start+4, len(data))]) {
		return start + 4, true
	}
	*m = ObjectMap{}
	return rawjson.WalkObject(data, start, func(key []byte, plain bool, start int) (int, bool) {
		kind, ok := rawjson.MapKeyString(key, plain)
		if !ok {
			return start, false
		}
		if rawjson.IsNull(data[start:min(start+4, len(data))]) {
			(*m)[kind] = nil
			return start + 4, true
		}
		byName := map[string]json.RawMessage{}
		(*m)[kind] = byName
		return rawjson.WalkObject(data, start, func(key []byte, plain bool, start int) (int, bool) {
			name, ok := rawjson.MapKeyString(key, plain)
			if !ok {
				return start, false
			}
			end, ok := ends.Skip(data, start)
			byName[name] = capped(data[start:end])
			return end, ok
		})
	})
}

// space is the index of the first byte of data that is not a blank.
func space(data []byte) int {
	return len(data) - len(bytes.TrimLeft(data, " \t\n\r"))
}

// rest reports whether only blanks follow data[end].
func rest(data []byte, end int) bool {
	return len(bytes.TrimRight(data[end:], " \t\n\r")) == 0
}

// capped is v with no room to append into what follows it.
func capped(v []byte) json.RawMessage { return json.RawMessage(v[:len(v):len(v)]) }
