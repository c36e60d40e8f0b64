package proc

import (
	"net/url"
	"sort"
	"strings"
	"sync"
)

// Redactor masks secrets in text shown to people (logs of failed tests,
// error messages). It is safe for concurrent use.
type Redactor struct {
	mu      sync.Mutex
	secrets []string
}

// minSecretLen keeps short values, which would mask unrelated text, out.
// Every secret a test makes is longer.
const minSecretLen = 4

// Add registers secrets, each also in its percent-encoded forms, since a
// secret often travels inside a URL.
func (r *Redactor) Add(secrets ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range secrets {
		for _, form := range []string{s, url.QueryEscape(s), url.PathEscape(s), strings.ReplaceAll(url.QueryEscape(s), "+", "%20")} {
			if len(form) >= minSecretLen && !contains(r.secrets, form) {
				r.secrets = append(r.secrets, form)
			}
		}
	}
	// Longest first, so a secret containing another is masked whole.
	sort.SliceStable(r.secrets, func(i, j int) bool { return len(r.secrets[i]) > len(r.secrets[j]) })
}

// Redact returns s with every registered secret replaced by <redacted>.
func (r *Redactor) Redact(s string) string {
	if r == nil {
		return s
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, sec := range r.secrets {
		s = strings.ReplaceAll(s, sec, "<redacted>")
	}
	return s
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
