package rawjson

import (
	"encoding/binary"
	"math/bits"
	"slices"
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
	a, _, ok := ScanEnds(data, 0)
	return a, ok
}

// ScanEnds is Scan that also keeps where each object and array ends that
// opens at most depth levels down (1: data itself), for a reader to step
// over it without reading it again (Ends.Skip).
func ScanEnds(data []byte, depth int) (Arrays, *Ends, bool) {
	a, ok := Arrays{}, false
	ends := newEnds(depth)
	stack := make([]openValue, 0, 64)
	i := space(data, 0)
value:
	if i >= len(data) {
		return a, nil, false
	}
	switch c := data[i]; c {
	case '{', '[':
		if len(stack) == maxDepth {
			return a, nil, false
		}
		start := i
		i = space(data, i+1)
		if i < len(data) && data[i] == c+2 { // '}' or ']': empty
			i++
			goto next
		}
		stack = append(stack, openValue{c, firstItem(c), ends.open(len(stack), start)})
		if a.Items += firstItem(c); c == '[' {
			goto value
		}
		goto key
	default:
		if i, ok = scanScalar(data, i); !ok {
			return a, nil, false
		}
	}
next:
	i = space(data, i)
	if len(stack) == 0 {
		return a, ends, i == len(data)
	}
	switch top := len(stack) - 1; byteAt(data, i) {
	case ',':
		i = space(data, i+1)
		if stack[top].kind == '{' {
			goto key
		}
		stack[top].items++
		a.Items++
		goto value
	case stack[top].kind + 2: // '}' or ']'
		a.Longest = max(a.Longest, stack[top].items)
		ends.close(stack[top].slot, i+1)
		stack = stack[:top]
		i++
		goto next
	}
	return a, nil, false
key:
	if i, ok = scanKey(data, i); !ok {
		return a, nil, false
	}
	goto value
}

// Ends are where the objects and arrays ScanEnds kept end, by where they
// start, in the order they start.
type Ends struct {
	depth        int
	starts, ends []int
}

func newEnds(depth int) *Ends {
	if depth <= 0 {
		return nil
	}
	return &Ends{depth: depth}
}

// open keeps an object or array that starts at data[start] with depth
// others around it: its slot, or -1 when it is deeper than kept.
func (e *Ends) open(depth, start int) int {
	if e == nil || depth >= e.depth {
		return -1
	}
	e.starts = append(e.starts, start)
	e.ends = append(e.ends, 0)
	return len(e.starts) - 1
}

// close notes the end of the value in slot.
func (e *Ends) close(slot, end int) {
	if slot >= 0 {
		e.ends[slot] = end
	}
}

// Skip is SkipValue for the data ScanEnds scanned: the end of a value it
// kept is looked up, any other value is stepped over as SkipValue does. A
// nil Ends keeps none.
func (e *Ends) Skip(data []byte, i int) (int, bool) {
	if e != nil {
		if k, found := slices.BinarySearch(e.starts, i); found {
			return e.ends[k], true
		}
	}
	return SkipValue(data, i)
}

// byteAt is data[i], or 0 (no byte JSON has between values) past the end.
func byteAt(data []byte, i int) byte {
	if i < len(data) {
		return data[i]
	}
	return 0
}

// firstItem is the item an array counts once it is not empty: 1 for '[',
// 0 for '{'.
func firstItem(c byte) int {
	if c == '[' {
		return 1
	}
	return 0
}

// openValue is an object or array Scan is in: its '{' or '[', the count
// of an array's items so far (0 for objects), and where its end is kept.
type openValue struct {
	kind  byte
	items int
	slot  int // in ScanEnds' Ends, or -1
}

// scanScalar returns the index after the string, literal or number that
// starts at data[i], and whether it is one.
func scanScalar(data []byte, i int) (int, bool) {
	switch data[i] {
	case '"':
		return scanString(data, i)
	case 't':
		return i + 4, literal(data, i, "true")
	case 'f':
		return i + 5, literal(data, i, "false")
	case 'n':
		return i + 4, literal(data, i, "null")
	}
	return scanNumber(data, i)
}

// scanKey returns the index of the value after the object key that starts
// at data[i] and its colon, and whether they are there.
func scanKey(data []byte, i int) (int, bool) {
	if i >= len(data) || data[i] != '"' {
		return i, false
	}
	end, ok := scanString(data, i)
	if !ok {
		return end, false
	}
	i = space(data, end)
	if i >= len(data) || data[i] != ':' {
		return i, false
	}
	return space(data, i+1), true
}

// The words scanString looks for in eight bytes at once.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// specials flags, in a word of eight bytes, the high bit of each byte that
// is a control character (below 0x20), a quote or a backslash, and no
// other byte below the first such one: a borrow carries upward only, so
// above a flagged byte others may be flagged too, but the lowest flag is
// always one of them. Zero when the word holds none.
func specials(x uint64) uint64 {
	q := x ^ ('"' * ones)
	b := x ^ ('\\' * ones)
	return ((x-0x20*ones)&^x | (q-ones)&^q | (b-ones)&^b) & highs
}

// special reports whether a word of eight bytes holds a control
// character, a quote or a backslash.
func special(x uint64) bool { return specials(x) != 0 }

// firstFlagged is the index of the lowest byte flagged in a word's mask.
func firstFlagged(mask uint64) int { return bits.TrailingZeros64(mask) / 8 }

// scanString returns the index after the string that starts at data[i], a
// quote, and whether it is a valid JSON string. It goes from one special
// byte to the next: eight bytes at a time to the word that holds one, then
// straight to it.
func scanString(data []byte, i int) (int, bool) {
	i++
	for {
		i = nextSpecial(data, i)
		switch {
		case i >= len(data):
			return i, false
		case data[i] == '"':
			return i + 1, true
		case data[i] != '\\':
			return i, false // a control character
		}
		end, ok := scanEscape(data, i)
		if !ok {
			return i, false
		}
		i = end
	}
}

// nextSpecial is the index of the first control character, quote or
// backslash in data from i on, len(data) when there is none.
func nextSpecial(data []byte, i int) int {
	for ; i+8 <= len(data); i += 8 {
		if m := specials(binary.LittleEndian.Uint64(data[i:])); m != 0 {
			return i + firstFlagged(m)
		}
	}
	for i < len(data) && data[i] >= 0x20 && data[i] != '"' && data[i] != '\\' {
		i++
	}
	return i
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
