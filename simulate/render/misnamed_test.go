package render

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
)

// The S3 address copied between a GlanceBackend (s3.host) and a
// ControlPlane's entry (s3.endpoint) is refused with the name the kind
// wants, as /validate and the CRDs refuse it.
func TestMisnamedS3AddressIsRefusedWithTheRightName(t *testing.T) {
	cases := map[string]struct {
		reason, example, from, to, want string
	}{
		"GlanceBackend": {"a GlanceBackend given a ControlPlane entry's endpoint",
			"standalone.yaml", "host", "endpoint", "spec.s3.endpoint " + api.MisnamedS3Endpoint},
		"ControlPlane": {"a ControlPlane entry given a GlanceBackend's host",
			"controlplane.yaml", "endpoint", "host", "spec.services.glance.backends[0].s3.host " + api.MisnamedS3Host},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("..", "..", "examples", c.example))
			require.NoError(t, err)
			in := regexp.MustCompile(`(?m)^(\s+)`+c.from+`: http`).ReplaceAllString(string(raw), "${1}"+c.to+": http")
			require.NotEqual(t, string(raw), in, "the example names the S3 address %s", c.from)
			var stdout, stderr bytes.Buffer
			cmd := Command{Paths: []string{"-"}, Namespace: "default", Format: FormatYAML}
			cmd.Options.MaxRounds = DefaultMaxRounds
			err = cmd.Run(strings.NewReader(in), &stdout, &stderr)
			require.Error(t, err, c.reason)
			assert.Contains(t, err.Error(), c.want, c.reason)
		})
	}
}
