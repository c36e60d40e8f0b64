package rawjson

import (
	"encoding/binary"
)

// maxDepth is encoding/json's limit on nested objects and arrays: a body
// nested deeper is not valid to it.
const maxDepth = 10000

// Arrays counts the items of a body's arrays.
type Arrays struct {
	// Items is the number of items of all arrays together.
	Items int
	// Longest is the number of items of the longest array.
	Longest int
}

// Scan reports whether data is one JSON value, exactly as encoding/json's
// Valid does (invalid UTF-8 is accepted, as there), and counts the items of
// its arrays, in one pass. It is the check that lets the readers of this
// package skip what they do not read: a hook's request is scanned once, and
// its objects are read later without being validated again. Strings, most
// of a request's bytes, are scanned eight bytes at a time.
func Scan(data []byte) (Arrays, bool) {
	var a Arrays
	// containers holds '{' or '[' per open value; items the count of each
	// open array (0 for objects).
	containers := make([]byte, 0, 64)
	items := make([]int, 0, 64)
	var top, end int
	var ok bool
	i := space(data, 0)
value:
	if i >= len(data) {
		return a, false
	}
	switch c := data[i]; c {
	case '{', '[':
		if len(containers) == maxDepth {
			return a, false
		}
		containers = append(containers, c)
		items = append(items, 0)
		i = space(data, i+1)
		if i < len(data) && data[i] == c+2 { // '}' or ']'
			i++
			containers, items = containers[:len(containers)-1], items[:len(items)-1]
			goto next
		}
		if c == '[' {
			items[len(items)-1] = 1
			a.Items++
			goto value
		}
		goto key
	case '"':
		end, ok = scanString(data, i)
		if !ok {
			return a, false
		}
		i = end
	case 't':
		if !literal(data, i, "true") {
			return a, false
		}
		i += 4
	case 'f':
		if !literal(data, i, "false") {
			return a, false
		}
		i += 5
	case 'n':
		if !literal(data, i, "null") {
			return a, false
		}
		i += 4
	default:
		end, ok = scanNumber(data, i)
		if !ok {
			return a, false
		}
		i = end
	}
next:
	i = space(data, i)
	if len(containers) == 0 {
		return a, i == len(data)
	}
	if i >= len(data) {
		return a, false
	}
	top = len(containers) - 1
	switch data[i] {
	case ',':
		i = space(data, i+1)
		if containers[top] == '{' {
			goto key
		}
		items[top]++
		a.Items++
		goto value
	case containers[top] + 2: // '}' or ']'
		a.Longest = max(a.Longest, items[top])
		containers, items = containers[:top], items[:top]
		i++
		goto next
	}
	return a, false
key:
	if i >= len(data) || data[i] != '"' {
		return a, false
	}
	end, ok = scanString(data, i)
	if !ok {
		return a, false
	}
	i = space(data, end)
	if i >= len(data) || data[i] != ':' {
		return a, false
	}
	i = space(data, i+1)
	goto value
}

// The words scanString looks for in eight bytes at once.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// special reports whether a word of eight bytes holds a control character
// (below 0x20), a quote or a backslash. It may report a word that holds
// none when a byte above such a one borrows; scanString then looks at
// each byte.
func special(x uint64) bool {
	q := x ^ ('"' * ones)
	b := x ^ ('\\' * ones)
	return ((x-0x20*ones)&^x|(q-ones)&^q|(b-ones)&^b)&highs != 0
}

// scanString returns the index after the string that starts at data[i], a
// quote, and whether it is a valid JSON string.
func scanString(data []byte, i int) (int, bool) {
	i++
	for {
		for i+8 <= len(data) && !special(binary.LittleEndian.Uint64(data[i:])) {
			i += 8
		}
		if i >= len(data) {
			return i, false
		}
		switch c := data[i]; {
		case c == '"':
			return i + 1, true
		case c == '\\':
			end, ok := scanEscape(data, i)
			if !ok {
				return i, false
			}
			i = end
		case c < 0x20:
			return i, false
		default:
			i++
		}
	}
}

// scanEscape returns the index after the escape at data[i], a backslash,
// and whether it is one JSON has. Escapes are rare, so the string's loop
// stays small without them.
func scanEscape(data []byte, i int) (int, bool) {
	if i+1 >= len(data) {
		return i, false
	}
	switch data[i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return i + 2, true
	case 'u':
		if i+6 > len(data) || !hex(data[i+2]) || !hex(data[i+3]) || !hex(data[i+4]) || !hex(data[i+5]) {
			return i, false
		}
		return i + 6, true
	}
	return i, false
}

func hex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func literal(data []byte, i int, word string) bool {
	return len(data)-i >= len(word) && string(data[i:i+len(word)]) == word
}

// scanNumber returns the index after the number that starts at data[i], and
// whether it is one: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func scanNumber(data []byte, i int) (int, bool) {
	if i < len(data) && data[i] == '-' {
		i++
	}
	switch {
	case i >= len(data):
		return i, false
	case data[i] == '0':
		i++
	case '1' <= data[i] && data[i] <= '9':
		i = digits(data, i+1)
	default:
		return i, false
	}
	if i < len(data) && data[i] == '.' {
		end := digits(data, i+1)
		if end == i+1 {
			return i, false
		}
		i = end
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		return scanExponent(data, i+1)
	}
	return i, true
}

// scanExponent returns the index after an exponent's sign and digits,
// which start at data[i], and whether they are there.
func scanExponent(data []byte, i int) (int, bool) {
	if i < len(data) && (data[i] == '+' || data[i] == '-') {
		i++
	}
	end := digits(data, i)
	if end == i {
		return i, false
	}
	return end, true
}

// digits returns the index after the digits from data[i] on.
func digits(data []byte, i int) int {
	for i < len(data) && '0' <= data[i] && data[i] <= '9' {
		i++
	}
	return i
}
