// Package excerpt is what a message may show of a value it was sent: an
// error answer or a log line names a field or an object, and where it
// shows a value at all, it shows a short excerpt, quoted and escaped, so no
// request can make a message long, multi-line, or carry control characters
// (or much of a credential that landed in the wrong field).
package excerpt

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Lengths in bytes of the value an excerpt keeps.
const (
	// MaxValue is what is kept of a value that is not a name.
	MaxValue = 32
	// MaxName is the longest Kubernetes object name (a DNS subdomain).
	MaxName = 253
	// MaxKind is the longest kind, apiVersion or field path kept.
	MaxKind = 63
)

// Value is a short excerpt of any value: quoted, escaped, cut.
func Value(s string) string { return Quote(s, MaxValue) }

// Name is an object name or namespace, quoted and escaped, cut at the
// longest a valid one can be.
func Name(s string) string { return Quote(s, MaxName) }

// Kind is a kind or apiVersion, quoted and escaped, cut.
func Kind(s string) string { return Quote(s, MaxKind) }

// Quote quotes s with Go's escapes (every byte outside printable ASCII
// escaped), keeping at most max bytes of it and saying how long it was when
// it was cut.
func Quote(s string, max int) string {
	if len(s) <= max {
		return strconv.QuoteToASCII(s)
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s... (%d bytes)", strconv.QuoteToASCII(s[:cut]), len(s))
}

// Token is s as it is when it is at most max bytes of letters, digits and
// "._-/:" (any valid name, kind or apiVersion), otherwise Quote(s, max): a
// log line stays readable for what a real caller sends and safe for
// anything else.
func Token(s string, max int) string {
	if s != "" && len(s) <= max && strings.Trim(s, tokenChars) == "" {
		return s
	}
	return Quote(s, max)
}

const tokenChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-/:"

// Bare is Quote without the quotes, for a value shown as part of a word
// (a field path), cut at MaxKind.
func Bare(s string) string {
	q := Quote(s, MaxKind)
	if strings.HasPrefix(q, `"`) {
		if i := strings.LastIndex(q, `"`); i > 0 {
			return q[1:i] + q[i+1:]
		}
	}
	return q
}

// JSONError says where and why JSON decoding failed without quoting the
// input: the offset of a syntax error, the field and the JSON type of a
// type mismatch (not the value), what kind of value did not parse.
func JSONError(err error) string {
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return "truncated JSON"
	}
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return fmt.Sprintf("malformed JSON at byte %d", syn.Offset)
	}
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		field := typ.Field
		if field == "" {
			field = "(top level)"
		}
		// Value is "number 1e999" for a number that does not fit: the
		// JSON type only.
		value, _, _ := strings.Cut(typ.Value, " ")
		return fmt.Sprintf("field %s must be %s, got JSON %s", Bare(field), typ.Type, value)
	}
	var tp *time.ParseError
	if errors.As(err, &tp) {
		return "a time is not in RFC 3339 form"
	}
	return "a value does not decode as its type"
}
