package rawjson

import (
	"encoding/binary"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// String decodes the JSON string v (quotes included) as encoding/json
// does; ok is false when v is no string.
func String(v []byte) (s string, ok bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", false
	}
	b, ok := unquote(v[1 : len(v)-1])
	return string(b), ok
}

// unquote decodes the content of a JSON string as encoding/json does:
// escapes, surrogate pairs joined, and every byte of invalid UTF-8 and
// every lone surrogate made U+FFFD. Plain ASCII content is returned as it
// is.
func unquote(s []byte) ([]byte, bool) {
	plain := asciiRun(s)
	if plain == len(s) {
		return s, true
	}
	b := make([]byte, plain, len(s)+utf8.UTFMax)
	copy(b, s[:plain])
	for r := plain; r < len(s); {
		// A run of plain ASCII up to the next escape is copied whole: a
		// JSON document kept in a string (a last-applied record) is
		// mostly that.
		if run := asciiRun(s[r:]); run > 0 {
			b = append(b, s[r:r+run]...)
			r += run
			continue
		}
		switch c := s[r]; {
		case c == '\\':
			var n int
			var ok bool
			if b, n, ok = appendEscape(b, s[r:]); !ok {
				return nil, false
			}
			r += n
		case c == '"' || c < ' ':
			return nil, false
		case c < utf8.RuneSelf:
			b = append(b, c)
			r++
		default:
			rr, size := utf8.DecodeRune(s[r:])
			b = utf8.AppendRune(b, rr)
			r += size
		}
	}
	return b, true
}

// appendEscape appends what the escape at the start of s, a backslash,
// stands for, and returns how many bytes of s it took.
func appendEscape(b, s []byte) ([]byte, int, bool) {
	if len(s) < 2 {
		return nil, 0, false
	}
	switch e := s[1]; e {
	case '"', '\\', '/':
		return append(b, e), 2, true
	case 'b':
		return append(b, '\b'), 2, true
	case 'f':
		return append(b, '\f'), 2, true
	case 'n':
		return append(b, '\n'), 2, true
	case 'r':
		return append(b, '\r'), 2, true
	case 't':
		return append(b, '\t'), 2, true
	case 'u':
		return appendUnicode(b, s)
	}
	return nil, 0, false
}

// appendUnicode appends the rune of the \uXXXX escape at the start of s,
// joined with the escape after it when the two are a surrogate pair; a
// lone surrogate is U+FFFD.
func appendUnicode(b, s []byte) ([]byte, int, bool) {
	rr := u4(s)
	if rr < 0 {
		return nil, 0, false
	}
	if utf16.IsSurrogate(rr) {
		if pair := utf16.DecodeRune(rr, u4(s[6:])); pair != unicode.ReplacementChar {
			return utf8.AppendRune(b, pair), 12, true
		}
		rr = unicode.ReplacementChar
	}
	return utf8.AppendRune(b, rr), 6, true
}

// asciiRun is how many bytes at the start of s are ASCII that needs no
// decoding: no backslash, no quote, no control character.
func asciiRun(s []byte) int {
	n := 0
	for n+8 <= len(s) {
		x := binary.LittleEndian.Uint64(s[n:])
		if x&highs != 0 || special(x) {
			break
		}
		n += 8
	}
	for n < len(s) {
		if c := s[n]; c >= utf8.RuneSelf || c == '\\' || c == '"' || c < ' ' {
			break
		}
		n++
	}
	return n
}

// u4 reads the \uXXXX escape at the start of s, or -1.
func u4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}
