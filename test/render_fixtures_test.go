package test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/test/testbin"
)

// TestFixturesRender runs `glance-hooks render` (the real binary, built from
// cmd/glance-hooks) for every test/fixtures/render/<case>/ and compares what
// it prints and how it exits with the files there:
//
//	args       the arguments after `glance-hooks render`, one per line;
//	           paths are relative to the repository root, where it runs
//	stdin      optional: what is piped to it (for -f -)
//	stdout     expected standard output
//	stderr     expected standard error
//	exit-code  expected exit code
//	case.md    what the case shows
//
// UPDATE_FIXTURES=1 (or -update) rewrites stdout, stderr and exit-code.
func TestFixturesRender(t *testing.T) {
	cases, err := filepath.Glob(filepath.Join("fixtures", "render", "*", "args"))
	require.NoError(t, err)
	require.NotEmpty(t, cases, "no render fixtures found")

	bin, err := testbin.Path()
	require.NoError(t, err)

	for _, argsFile := range cases {
		dir := filepath.Dir(argsFile)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			raw, err := os.ReadFile(argsFile)
			require.NoError(t, err)
			args := []string{"render"}
			for _, l := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
				if l = strings.TrimSpace(l); l != "" {
					args = append(args, l)
				}
			}
			var stdin []byte
			if b, err := os.ReadFile(filepath.Join(dir, "stdin")); err == nil {
				stdin = b
			}
			run := func() (stdout, stderr string, code int) {
				cmd := exec.Command(bin, args...)
				cmd.Dir = ".."
				cmd.Stdin = bytes.NewReader(stdin)
				var o, e bytes.Buffer
				cmd.Stdout, cmd.Stderr = &o, &e
				err := cmd.Run()
				var exit *exec.ExitError
				if errors.As(err, &exit) {
					code = exit.ExitCode()
				} else {
					require.NoError(t, err)
				}
				return o.String(), e.String(), code
			}
			stdout, stderr, code := run()
			stdout2, stderr2, code2 := run()
			require.Equal(t, []any{stdout, stderr, code}, []any{stdout2, stderr2, code2}, "render is not deterministic")

			got := map[string]string{"stdout": stdout, "stderr": stderr, "exit-code": strconv.Itoa(code) + "\n"}
			for _, name := range []string{"stdout", "stderr", "exit-code"} {
				path := filepath.Join(dir, name)
				if *update {
					require.NoError(t, os.WriteFile(path, []byte(got[name]), 0o644))
					continue
				}
				want, err := os.ReadFile(path)
				require.NoError(t, err, "missing %s: run with UPDATE_FIXTURES=1 to create it", path)
				require.Equal(t, string(want), got[name], "%s differs (run with UPDATE_FIXTURES=1 to accept)", path)
			}
		})
	}
}
