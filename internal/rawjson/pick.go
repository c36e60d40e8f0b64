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
	end, ok := PickStringsAt(obj, space(obj, 0), values, keys...)
	return values, ok && space(obj, end) == len(obj)
}

// PickStringsAt is PickStrings of the value that starts at data[i], read
// where it is, into values, one for each key (a reader that picks from
// several maps gives each its part of one slice): it returns the index
// after the value, for a reader that walks the data around it (see
// ValueDecoder).
func PickStringsAt(data []byte, i int, values []string, keys ...string) (end int, ok bool) {
	clear(values)
	if null(data, i) {
		return i + 4, true
	}
	var s string
	str := reflect.ValueOf(&s).Elem()
	return WalkObject(data, i, func(key []byte, plain bool, start int) (int, bool) {
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
		case null(data, start):
			if k >= 0 {
				values[k] = ""
			}
			return start + 4, true
		case start >= len(data) || data[start] != '"':
			return start, false
		case k < 0:
			end, _, ok := skipString(data, start)
			return end, ok
		}
		s = ""
		end, ok := decodeString(data, start, str)
		values[k] = s
		return end, ok
	})
}
