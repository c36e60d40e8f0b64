package services

import (
	"crypto/rand"
	"strings"
)

// RandomSecret is a password for a test: letters and digits, then the
// characters that break naive URL handling (@ : / %), so every test that
// uses it also proves they survive.
func RandomSecret() string {
	return rand.Text()[:20] + "@:/%"
}

// PercentEncode encodes every byte except RFC 3986's unreserved characters,
// the form a user or password takes inside a URL's userinfo (SQLAlchemy
// decodes it back).
func PercentEncode(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}
