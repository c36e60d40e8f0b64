// Package rawjson reads single members out of JSON that is known to be
// valid, without decoding or validating the rest of it: a hook that needs
// one key of a Secret holding a thousand store sections should not pay for
// the whole Secret. Every object in a Metacontroller request is valid JSON
// by the time a hook sees it (the transport decodes the whole body with
// encoding/json first, which checks all of it; the in-process chain writes
// its objects with encoding/json).
//
// Each reader answers exactly what encoding/json would decode into a
// struct field of the same name, or says it cannot tell (Unsure): a key
// that differs from the name only in case, a key with escapes or non-ASCII
// bytes, a name given twice, a string with escapes or invalid UTF-8. The
// caller then decodes the object with encoding/json as before, so the
// answer, and any error, is what it always was.
package rawjson

import (
	"bytes"
	"encoding/binary"
	"strings"
	"unicode/utf8"
)

// Result says what a lookup found.
type Result int

const (
	// Found: the member exists and its value is what encoding/json would
	// decode.
	Found Result = iota
	// Absent: encoding/json would not set the field.
	Absent
	// Unsure: the JSON is not an object, or a key or value needs
	// encoding/json to say what it means; decode the object with it.
	Unsure
)

// Field returns the raw value of the member name of the object obj, the way
// encoding/json matches a struct field tagged name: Unsure when another
// key could match it too (case-insensitively, or through escapes) or name
// appears twice.
func Field(obj []byte, name string) ([]byte, Result) {
	var value []byte
	res := Absent
	ok := Members(obj, func(key []byte, plain bool, v []byte) bool {
		i, exact := Match(key, plain, name)
		switch {
		case !exact:
			res = Unsure
		case i < 0:
		case res == Found:
			res = Unsure
		default:
			value, res = v, Found
		}
		return res != Unsure
	})
	if !ok || res == Unsure {
		return nil, Unsure
	}
	return value, res
}

// Match finds which of names an object's key selects the way encoding/json
// matches keys to the fields of a struct: the index of the name it equals,
// or -1. exact is false when encoding/json might take it for one of names
// although it is not written as one: a key with escapes (plain false) or
// non-ASCII bytes, or one that equals a name but for case.
func Match(key []byte, plain bool, names ...string) (index int, exact bool) {
	if !plain || !isASCII(key) {
		return -1, false
	}
	for i, n := range names {
		if string(key) == n {
			return i, true
		}
	}
	for _, n := range names {
		if strings.EqualFold(string(key), n) {
			return -1, false
		}
	}
	return -1, true
}

// Path follows Field through nested objects: the value at obj.names[0].
// names[1]..., Absent where encoding/json would leave the field unset (a
// member missing or null on the way), Unsure where Field is or a value on
// the way is no object (encoding/json would fail there).
func Path(obj []byte, names ...string) ([]byte, Result) {
	for _, name := range names {
		v, res := Field(obj, name)
		if res != Found {
			return nil, res
		}
		if IsNull(v) {
			return nil, Absent
		}
		obj = v
	}
	return obj, Found
}

// Members calls fn with every member of the object obj, in order: its key
// (still escaped when plain is false) and its raw value. fn returns false to
// stop. Members returns false when obj is not an object, ends early, or fn
// stopped.
func Members(obj []byte, fn func(key []byte, plain bool, value []byte) bool) bool {
	end, ok := WalkObject(obj, space(obj, 0), func(key []byte, plain bool, start int) (int, bool) {
		end, ok := SkipValue(obj, start)
		return end, ok && fn(key, plain, obj[start:end])
	})
	return ok && space(obj, end) == len(obj)
}

// WalkObject walks the object that starts at data[i]: fn gets each key
// (still escaped when plain is false) and the index its value starts at,
// and returns the index after the value (SkipValue's, when it does not read
// the value) and whether to go on. WalkObject returns the index after the
// object, and false when it is no object, ends early, or fn stopped. A
// reader takes apart nested objects this way in one pass.
func WalkObject(data []byte, i int, fn func(key []byte, plain bool, start int) (end int, ok bool)) (int, bool) {
	if i >= len(data) || data[i] != '{' {
		return i, false
	}
	i = space(data, i+1)
	if i < len(data) && data[i] == '}' {
		return i + 1, true
	}
	for i < len(data) {
		if data[i] != '"' {
			return i, false
		}
		end, escaped, ok := skipString(data, i)
		if !ok {
			return i, false
		}
		key := data[i+1 : end-1]
		i = space(data, end)
		if i >= len(data) || data[i] != ':' {
			return i, false
		}
		if i, ok = fn(key, !escaped, space(data, i+1)); !ok {
			return i, false
		}
		var more bool
		if i, more, ok = afterItem(data, i, '}'); !more {
			return i, ok
		}
	}
	return i, false
}

// afterItem steps over what follows an item of an object or array that
// ends at data[i]: a comma, after which the next item starts at the index
// it returns (more), or the closing bracket, after which the container has
// ended (ok). Anything else is neither.
func afterItem(data []byte, i int, closing byte) (next int, more, ok bool) {
	i = space(data, i)
	switch {
	case i >= len(data):
		return i, false, false
	case data[i] == ',':
		return space(data, i+1), true, true
	case data[i] == closing:
		return i + 1, false, true
	}
	return i, false, false
}

// StringBytes returns the content of the JSON string v when it needs no
// decoding (no escapes, valid UTF-8): the bytes encoding/json would decode
// it to. ok is false for anything else, a string with escapes included.
func StringBytes(v []byte) (s []byte, ok bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return nil, false
	}
	s = v[1 : len(v)-1]
	if bytes.IndexByte(s, '\\') >= 0 || bytes.IndexByte(s, '"') >= 0 || !utf8.Valid(s) {
		return nil, false
	}
	return s, true
}

// IsNull reports whether v is the JSON literal null.
func IsNull(v []byte) bool { return string(v) == "null" }

func isASCII(s []byte) bool {
	for _, c := range s {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func space(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// skipString returns the index after the string starting at b[i] (a quote)
// and whether it holds an escape. It looks at eight bytes at a time for
// the next quote or backslash, which is what makes long values cheap to
// step over, and goes straight to the first one a word holds.
func skipString(b []byte, i int) (end int, escaped, ok bool) {
	i++
	for {
		i = nextQuoteOrBackslash(b, i)
		switch {
		case i >= len(b):
			return len(b), escaped, false
		case b[i] == '"':
			return i + 1, escaped, true
		}
		escaped = true
		i += 2 // the backslash and the character it escapes
	}
}

// nextQuoteOrBackslash is the index of the first quote or backslash in b
// from i on, len(b) (or more) when there is none.
func nextQuoteOrBackslash(b []byte, i int) int {
	for ; i+8 <= len(b); i += 8 {
		if m := quotesOrBackslashes(binary.LittleEndian.Uint64(b[i:])); m != 0 {
			return i + firstFlagged(m)
		}
	}
	for i < len(b) && b[i] != '"' && b[i] != '\\' {
		i++
	}
	return i
}

// quotesOrBackslashes flags the high bit of each quote or backslash of a
// word of eight bytes, and no byte below the first of them (see specials).
func quotesOrBackslashes(x uint64) uint64 {
	q := x ^ ('"' * ones)
	b := x ^ ('\\' * ones)
	return ((q-ones)&^q | (b-ones)&^b) & highs
}

// SkipValue returns the index after the value that starts at b[i], without
// reading or validating it.
func SkipValue(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return i, false
	}
	switch b[i] {
	case '"':
		end, _, ok := skipString(b, i)
		return end, ok
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				end, _, ok := skipString(b, i)
				if !ok {
					return end, false
				}
				i = end
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, true
				}
			}
			i++
		}
		return i, false
	default:
		// A number or literal runs to the next delimiter.
		start := i
		for i < len(b) {
			switch b[i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return i, i > start
			}
			i++
		}
		return i, i > start
	}
}
