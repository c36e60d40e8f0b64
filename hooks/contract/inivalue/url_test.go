package inivalue

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestURLProblems(t *testing.T) {
	for _, v := range []string{"http://s3:3900", "https://s3.example/path?x=1", "http://[fd00::1]:443", "http://h:65535"} {
		assert.Empty(t, URLProblems(v, "x"), v)
	}
	cases := map[string][]string{
		// Unparsable URLs used to skip the user-info check. The parser's
		// reason is kept, not what it quotes of the URL.
		"http://user:pa%zzss@s3:3900": {"must be a valid URL: invalid URL escape"},
		"http://ho%zzst:3900":         {"must be a valid URL: invalid URL escape"},
		"http://user:p@s3:39x0":       {"must be a valid URL: invalid port after host"},
		"http://s3:99999":             {"must have a port from 1 to 65535"},
		"ftp://k:SECRET@x":            {"scheme must be http or https", "must not carry credentials (user:password@); x"},
		"http://user:pw@s3:3900":      {"must not carry credentials (user:password@); x"},
		"http:///no-host":             {"URL must include a host"},
		"http:no-host":                {"URL must include a host"},
		"s3:3900":                     {"scheme must be http or https"},
		"keystone:5000":               {"scheme must be http or https"},
		"://keystone":                 {"must be a valid URL: missing protocol scheme"},
	}
	for v, want := range cases {
		got := URLProblems(v, "x")
		assert.Equal(t, want, got, v)
		for _, p := range got {
			assert.NotContains(t, p, "SECRET", "the problem never repeats the URL")
			assert.NotContains(t, p, "zz", "nor what the parser quotes of it")
			assert.NotContains(t, p, "39x0", "nor what the parser quotes of it")
		}
	}
}

// plainURL accepts only URLs the parse finds nothing wrong with, and the
// plain forms stores are written in.
func FuzzPlainURL(f *testing.F) {
	for _, v := range []string{"http://s3:3900", "https://s3.example.com", "http://10.0.0.1:443", "http://h:0", "http://h:65536", "http://h:+1",
		"http://h:", "http://:80", "http://h:1:2", "https://H", "http://u@h", "http://h/x", "http://h%41", "http://h:0080", "http://h:-1"} {
		f.Add(v)
	}
	for _, v := range []string{"http://s3:3900", "https://s3.example.com", "http://10.0.0.1:443", "http://h:65535"} {
		if !plainURL(v) {
			f.Errorf("plainURL(%q) = false: a store's plain URL is parsed", v)
		}
	}
	f.Fuzz(func(t *testing.T, v string) {
		if plainURL(v) && len(parsedURLProblems(v, "x")) > 0 {
			t.Fatalf("plainURL accepts %q, which the parse refuses: %v", v, parsedURLProblems(v, "x"))
		}
	})
}
