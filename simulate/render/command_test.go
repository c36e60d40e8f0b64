package render

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCommandCheck(t *testing.T) {
	valid := Command{Paths: []string{"a.yaml"}, Format: FormatYAML, Options: Options{MaxRounds: 1}}
	with := func(f func(*Command)) Command { c := valid; f(&c); return c }
	type want struct {
		msg  string
		code int
	}
	cases := map[string]struct {
		reason string
		cmd    Command
		want   want
	}{
		"Valid": {
			reason: "one input, a known format and a positive round limit can run",
			cmd:    valid,
			want:   want{code: ExitOK},
		},
		"NoInput": {
			reason: "a render without -f has nothing to read",
			cmd:    with(func(c *Command) { c.Paths = nil }),
			want:   want{msg: "no input: give -f FILE, -f DIR or -f -", code: ExitUsage},
		},
		"UnknownFormat": {
			reason: "only yaml and json are written",
			cmd:    with(func(c *Command) { c.Format = "xml" }),
			want:   want{msg: `-o must be yaml or json, not "xml"`, code: ExitUsage},
		},
		"NoRounds": {
			reason: "a round limit below one would never run a hook",
			cmd:    with(func(c *Command) { c.Options.MaxRounds = 0 }),
			want:   want{msg: "--max-rounds must be at least 1", code: ExitUsage},
		},
		"DiffOneInput": {
			reason: "--diff compares exactly BEFORE and AFTER",
			cmd:    with(func(c *Command) { c.Diff = true }),
			want:   want{msg: "--diff needs exactly two inputs: -f BEFORE -f AFTER", code: ExitUsage},
		},
		"DiffStdinTwice": {
			reason: "standard input can be read once",
			cmd:    with(func(c *Command) { c.Diff, c.Paths = true, []string{"-", "-"} }),
			want:   want{msg: "--diff can read standard input for one of BEFORE and AFTER, not both", code: ExitUsage},
		},
		"DiffJSON": {
			reason: "--diff writes a text report, not objects",
			cmd:    with(func(c *Command) { c.Diff, c.Paths, c.Format = true, []string{"a", "b"}, FormatJSON }),
			want:   want{msg: "--diff prints a text report; -o does not apply", code: ExitUsage},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := tc.cmd.Check()
			got := want{code: ExitCode(err)}
			if err != nil {
				got.msg = err.Error()
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nCheck(): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestCommandRun(t *testing.T) {
	write := inputFiles(t)
	before := write("before.yaml", credentials, controlPlane("default"))
	after := write("after.yaml", credentials, controlPlane("secondary"))
	empty := write("empty.yaml")
	type want struct {
		code    int
		stdout  string // a line stdout holds
		summary string // the last line on stderr
	}
	cases := map[string]struct {
		reason string
		cmd    Command
		want   want
	}{
		"Render": {
			reason: "a render writes the objects and ends stderr with how the run went",
			cmd:    Command{Paths: []string{before}},
			want:   want{code: ExitOK, stdout: "kind: Deployment", summary: "20 objects; render converged after 5 rounds"},
		},
		"RenderJSON": {
			reason: "-o json writes one v1 List",
			cmd:    Command{Paths: []string{before}, Format: FormatJSON},
			want:   want{code: ExitOK, stdout: `"kind": "List"`, summary: "20 objects; render converged after 5 rounds"},
		},
		"Empty": {
			reason: "an input without objects is refused rather than rendered to nothing",
			cmd:    Command{Paths: []string{empty}},
			want:   want{code: ExitInput},
		},
		"DiffSame": {
			reason: "the same input twice renders the same",
			cmd:    Command{Paths: []string{before, before}, Diff: true},
			want:   want{code: ExitOK, stdout: "pods do not roll", summary: "20 objects before, 20 after; BEFORE converged after 5 rounds, AFTER converged after 1 round"},
		},
		"DiffSwitch": {
			reason: "moving the default is a difference, reported with exit code 1",
			cmd:    Command{Paths: []string{before, after}, Diff: true},
			want:   want{code: ExitDifferent, stdout: "Glance openstack/controlplane-glance: pods roll", summary: "20 objects before, 20 after; BEFORE converged after 5 rounds, AFTER converged after 4 rounds"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			tc.cmd.Namespace, tc.cmd.Options.MaxRounds = "default", DefaultMaxRounds
			if tc.cmd.Format == "" {
				tc.cmd.Format = FormatYAML
			}
			var stdout, stderr bytes.Buffer
			err := tc.cmd.Run(strings.NewReader(""), &stdout, &stderr)
			got := want{code: ExitCode(err), summary: lastLine(stderr.String())}
			if strings.Contains(stdout.String(), tc.want.stdout) {
				got.stdout = tc.want.stdout
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nRun(): -want, +got:\n%s\nstdout:\n%s\nstderr:\n%s", tc.reason, diff, stdout.String(), stderr.String())
			}
		})
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	return lines[len(lines)-1]
}

func TestCommandRequireReady(t *testing.T) {
	write := inputFiles(t)
	healthy := write("healthy.yaml", credentials, glance, backend("primary", "glance", "garage-s3-credentials", true))
	faulted := write("faulted.yaml", credentials, glance, backend("primary", "glance", "garage-s3-credentials", true),
		backend("archive", "glance", "missing-credentials", false))
	type want struct {
		code int
		msg  string
	}
	cases := map[string]struct {
		reason string
		cmd    Command
		want   want
	}{
		"Ready": {
			reason: "every parent Ready passes --check",
			cmd:    Command{Paths: []string{healthy}, RequireReady: true},
			want:   want{code: ExitOK},
		},
		"NotReadyUnchecked": {
			reason: "without --check a faulted store is reported in the conditions, and the render succeeds",
			cmd:    Command{Paths: []string{faulted}},
			want:   want{code: ExitOK},
		},
		"NotReady": {
			reason: "--check fails naming each parent that is not Ready, in output order",
			cmd:    Command{Paths: []string{faulted}, RequireReady: true},
			want:   want{code: ExitNotReady, msg: "--check: 2 parents not Ready: Glance openstack/glance, GlanceBackend openstack/archive"},
		},
		"DiffNotReady": {
			reason: "with --diff the state after AFTER is checked, before the difference is reported",
			cmd:    Command{Paths: []string{healthy, faulted}, Diff: true, RequireReady: true},
			want:   want{code: ExitNotReady, msg: "--check: 2 parents not Ready: Glance openstack/glance, GlanceBackend openstack/archive"},
		},
		"DiffReady": {
			reason: "a difference that leaves every parent Ready is still a difference",
			cmd:    Command{Paths: []string{faulted, healthy}, Diff: true, RequireReady: true},
			want:   want{code: ExitDifferent, msg: ErrDifferent.Error()},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			tc.cmd.Namespace, tc.cmd.Format, tc.cmd.Options.MaxRounds = "openstack", FormatYAML, DefaultMaxRounds
			err := tc.cmd.Run(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{})
			got := want{code: ExitCode(err)}
			if err != nil {
				got.msg = err.Error()
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nRun(): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// inputFiles returns a function that writes documents as one YAML stream
// into a file of a fresh directory and returns its path.
func inputFiles(t *testing.T) func(name string, docs ...string) string {
	dir := t.TempDir()
	return func(name string, docs ...string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(stream(docs...)), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
}
