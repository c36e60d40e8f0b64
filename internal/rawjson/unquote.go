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
			if r+1 >= len(s) {
				return nil, false
			}
			switch e := s[r+1]; e {
			case '"', '\\', '/':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				rr := u4(s[r:])
				if rr < 0 {
					return nil, false
				}
				r += 6
				if utf16.IsSurrogate(rr) {
					if pair := utf16.DecodeRune(rr, u4(s[r:])); pair != unicode.ReplacementChar {
						b = utf8.AppendRune(b, pair)
						r += 6
						continue
					}
					rr = unicode.ReplacementChar
				}
				b = utf8.AppendRune(b, rr)
				continue
			default:
				return nil, false
			}
			r += 2
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
