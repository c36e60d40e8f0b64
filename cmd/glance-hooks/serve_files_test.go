package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/internal/buildinfo"
	"github.com/c5c3/glance-hooks/internal/image"
	"github.com/c5c3/glance-hooks/test/testcert"
)

// A file serve needs that is not there stops it with what to mount or
// pass, before it listens.
func TestServeSaysWhatToMount(t *testing.T) {
	dir := t.TempDir()
	pair, err := testcert.New("x", "127.0.0.1")
	require.NoError(t, err)
	certFile, keyFile, err := pair.Write(dir)
	require.NoError(t, err)
	gone := filepath.Join(dir, "gone", "token")
	cases := map[string]struct {
		reason string
		args   []string
		want   []string
		// absent must not exist on this machine for the case to hold.
		absent string
	}{
		"the image's default command": {
			reason: "docker run of the image without the chart's Secrets names the mount, the flags and the plain-HTTP way to try it",
			args:   image.DefaultCmd,
			want: []string{"--tls-cert-file " + image.TLSDir + "/tls.crt does not exist",
				"mount a kubernetes.io/tls Secret (keys tls.crt and tls.key) at " + image.TLSDir, "--insecure-plain-http"},
			absent: image.TLSDir,
		},
		"missing key": {
			reason: "the key is checked like the certificate",
			args:   []string{"serve", "--tls-cert-file", certFile, "--tls-key-file", filepath.Join(dir, "nokey")},
			want:   []string{"--tls-key-file " + filepath.Join(dir, "nokey") + " does not exist", "or pass --tls-cert-file and --tls-key-file"},
		},
		"missing token": {
			reason: "the hook token names its key and directory",
			args:   []string{"serve", "--tls-cert-file", certFile, "--tls-key-file", keyFile, "--auth-token-file", gone},
			want:   []string{"--auth-token-file " + gone + " does not exist", "mount a Secret with the key token at " + filepath.Dir(gone)},
		},
		"missing client CA": {
			reason: "a client CA bundle that is not there",
			args:   []string{"serve", "--tls-cert-file", certFile, "--tls-key-file", keyFile, "--client-ca-file", gone},
			want:   []string{"--client-ca-file " + gone + " does not exist", "leave --client-ca-file out"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := os.Stat(tc.absent); tc.absent != "" && err == nil {
				t.Skipf("%s exists on this machine", tc.absent)
			}
			var stdout, stderr bytes.Buffer
			args := append(append([]string{}, tc.args...), "--listen", "127.0.0.1:0", "--metrics-listen", "")
			code := execute(context.Background(), args, nil, &stdout, &stderr)
			assert.Equal(t, exitFailure, code, "%s; stderr: %s", tc.reason, stderr.String())
			for _, w := range tc.want {
				assert.Contains(t, stderr.String(), w, tc.reason)
			}
			assert.Empty(t, stdout.String(), "errors go to stderr")
		})
	}
}

// A build that is no release says, once at start, that its default job
// image may not be its own code; a given --job-image silences it.
func TestServeWarnsOfTheDefaultJobImage(t *testing.T) {
	noAPIAccess(t)
	caveat := "--job-image: " + buildinfo.Get().ImageCaveat()
	require.NotEqual(t, "--job-image: ", caveat, "go test builds are no release")
	s := startServe(t, "--routes", "hooks", "--insecure-plain-http")
	assert.Contains(t, s.logs.String(), caveat)
	s.stop(t)
	s = startServe(t, "--routes", "hooks", "--insecure-plain-http", "--job-image", "registry.example/glance-hooks:mine")
	assert.NotContains(t, s.logs.String(), "--job-image:")
	s.stop(t)
}
