package rawjson

import "reflect"

// PickStrings reads the object obj as encoding/json decodes it into a
// map[string]string, and returns the values of keys only, in their order
// ("" for one absent or null; of a key given twice, the last), without
// decoding the other members: a Secret's annotations carry Metacontroller's
// last-applied record, as long as the Secret and full of escapes, which a
// hook reading two annotations need not decode. ok is false when
// encoding/json would fail (obj is not an object or null, a member is not
// a string or null) or this package cannot tell (a key with escapes).
func PickStrings(obj []byte, keys ...string) (values []string, ok bool) {
	values = make([]string, len(keys))
	i := space(obj, 0)
	if null(obj, i) {
		return values, space(obj, i+4) == len(obj)
	}
	var s string
	str := reflect.ValueOf(&s).Elem()
	end, ok := WalkObject(obj, i, func(key []byte, plain bool, start int) (int, bool) {
		if !plain {
			return start, false
		}
		k := -1
		for j, name := range keys {
			if string(key) == name {
				k = j
			}
		}
		switch {
		case null(obj, start):
			if k >= 0 {
				values[k] = ""
			}
			return start + 4, true
		case start >= len(obj) || obj[start] != '"':
			return start, false
		case k < 0:
			end, _, ok := skipString(obj, start)
			return end, ok
		}
		s = ""
		end, ok := decodeString(obj, start, str)
		values[k] = s
		return end, ok
	})
	return values, ok && space(obj, end) == len(obj)
}
