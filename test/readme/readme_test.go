// Package readme holds the README's install steps to what works: every
// block marked for it is turned into the objects a reader would create and
// rendered with `render --check`, which wants every parent Ready.
package readme

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/simulate/render"
)

// marker starts an HTML comment the README puts on the line before a
// fenced block a reader applies.
const marker = "<!-- render-check:"

// snippet is one marked block.
type snippet struct {
	line int // of the fence, in README.md
	text string
}

// snippets finds every marked fenced block of a Markdown document.
func snippets(t *testing.T, md string) []snippet {
	t.Helper()
	lines := strings.Split(md, "\n")
	var out []snippet
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(strings.TrimSpace(lines[i]), marker) {
			continue
		}
		require.Less(t, i+1, len(lines), "a marker ends the README")
		fence := strings.TrimSpace(lines[i+1])
		require.True(t, strings.HasPrefix(fence, "```"), "README.md:%d: the marker is not followed by a fenced block", i+1)
		indent := lines[i+1][:strings.Index(lines[i+1], "```")]
		var b strings.Builder
		j := i + 2
		for ; j < len(lines) && strings.TrimSpace(lines[j]) != "```"; j++ {
			b.WriteString(strings.TrimPrefix(lines[j], indent) + "\n")
		}
		require.Less(t, j, len(lines), "README.md:%d: the block is not closed", i+2)
		out = append(out, snippet{line: i + 2, text: b.String()})
		i = j
	}
	return out
}

var (
	createSecret = regexp.MustCompile(`kubectl\s+(?:-n\s+(\S+)\s+)?create\s+secret\s+generic\s+(\S+)(.*)`)
	fromKey      = regexp.MustCompile(`--from-(literal|file)=([A-Za-z0-9_.-]+)=(\S+)`)
	heredoc      = regexp.MustCompile(`(?s)<<'?(\w+)'?\n(.*?)\n(\w+)\n`)
)

// objects turns a shell block into what it creates: a Secret per `kubectl
// create secret generic` (literal values as written; values read from a
// file or a prompt get a placeholder a reader might type) and every
// here-document given to `kubectl apply -f -`.
func objects(t *testing.T, s snippet) string {
	t.Helper()
	text := strings.ReplaceAll(s.text, "\\\n", " ") // join continued lines
	var docs []string
	for _, line := range strings.Split(text, "\n") {
		m := createSecret.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		ns := m[1]
		if ns == "" {
			ns = "default"
		}
		var data []string
		for _, k := range fromKey.FindAllStringSubmatch(m[3], -1) {
			value := k[3]
			if k[1] == "file" {
				value = "typed-at-the-prompt-" + strings.ToLower(k[2])
			}
			data = append(data, fmt.Sprintf("  %s: %s", k[2], base64.StdEncoding.EncodeToString([]byte(value))))
		}
		require.NotEmpty(t, data, "README.md:%d: secret %s has no keys the test can read", s.line, m[2])
		docs = append(docs, fmt.Sprintf("apiVersion: v1\nkind: Secret\nmetadata:\n  name: %s\n  namespace: %s\ndata:\n%s\n", m[2], ns, strings.Join(data, "\n")))
	}
	for _, m := range heredoc.FindAllStringSubmatch(s.text, -1) {
		require.Equal(t, m[1], m[3], "README.md:%d: here-document not closed by its word", s.line)
		docs = append(docs, m[2]+"\n")
	}
	return strings.Join(docs, "---\n")
}

func TestREADMESnippetsRenderReady(t *testing.T) {
	md, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)
	found := snippets(t, string(md))
	require.NotEmpty(t, found, "the README marks the blocks a reader applies with %q", marker)
	for _, s := range found {
		t.Run(fmt.Sprintf("README.md:%d", s.line), func(t *testing.T) {
			in := objects(t, s)
			require.Contains(t, in, "kind: ", "the block creates objects")
			var stdout, stderr bytes.Buffer
			cmd := render.Command{Paths: []string{"-"}, Namespace: "default", Format: render.FormatYAML, RequireReady: true}
			cmd.Options.MaxRounds = render.DefaultMaxRounds
			err := cmd.Run(strings.NewReader(in), &stdout, &stderr)
			assert.NoError(t, err, "render --check of the README's block:\n%s\nconditions:\n%s", in, stderr.String())
			assert.NotContains(t, stderr.String(), "False", "every condition holds")
		})
	}
}

// The test itself sees what a reader would miss: a block without the
// admin Secret does not reach Ready.
func TestAMissingSecretIsCaught(t *testing.T) {
	md, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)
	found := snippets(t, string(md))
	require.NotEmpty(t, found)
	s := found[0]
	require.Contains(t, s.text, "keystone-admin")
	s.text = regexp.MustCompile(`(?s)kubectl -n openstack create secret generic keystone-admin.*?\n[^ ].*?\n`).ReplaceAllString(s.text, "")
	in := objects(t, s)
	require.NotContains(t, in, "keystone-admin")
	cmd := render.Command{Paths: []string{"-"}, Namespace: "default", Format: render.FormatYAML, RequireReady: true}
	cmd.Options.MaxRounds = render.DefaultMaxRounds
	var stderr bytes.Buffer
	err = cmd.Run(strings.NewReader(in), &bytes.Buffer{}, &stderr)
	require.Error(t, err)
	assert.Equal(t, render.ExitNotReady, render.ExitCode(err))
	assert.Contains(t, stderr.String(), "WaitingForAdminCredentials")
}

// The README is for operators: short enough to read through, with the two
// commands a developer starts from; the rest lives in docs/.
func TestREADMEStaysShort(t *testing.T) {
	md, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)
	lines := strings.Count(string(md), "\n")
	assert.LessOrEqual(t, lines, 250, "README.md has %d lines: move reference material to docs/", lines)
	for _, cmd := range []string{"\nmake render ", "\nmake test "} {
		assert.Contains(t, string(md), cmd, "the quick start's command %q", strings.TrimSpace(cmd))
	}
	for _, section := range []string{"## Quick start", "## Install on a cluster", "## Verify", "## Upgrade", "## Uninstall", "## Dependencies"} {
		assert.Contains(t, string(md), "\n"+section+"\n")
	}
}

// Every relative link of the README and of docs/ reaches a file, and an
// anchor into the README or a doc names a heading there: moving a section
// out of the README must not strand a link.
func TestDocLinksResolve(t *testing.T) {
	root := filepath.Join("..", "..")
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	require.NoError(t, err)
	files = append(files, filepath.Join(root, "README.md"))
	link := regexp.MustCompile(`\]\(([^)#\s]*)(#[^)\s]*)?\)`)
	for _, f := range files {
		raw, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, m := range link.FindAllStringSubmatch(string(raw), -1) {
			target, anchor := m[1], strings.TrimPrefix(m[2], "#")
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") || strings.ContainsAny(target, "[*") {
				continue // a URL, or a regular expression in a code span
			}
			path := f
			if target != "" {
				path = filepath.Join(filepath.Dir(f), target)
			}
			body, err := os.ReadFile(path)
			if !assert.NoError(t, err, "%s links to %s", f, target) || anchor == "" || !strings.HasSuffix(path, ".md") {
				continue
			}
			assert.Contains(t, anchors(string(body)), anchor, "%s links to %s#%s, which has no such heading", f, target, anchor)
		}
	}
}

// anchors are the GitHub anchors of a Markdown document's headings.
func anchors(md string) []string {
	var out []string
	inFence := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence = !inFence
		}
		if inFence || !strings.HasPrefix(line, "#") {
			continue
		}
		h := strings.ToLower(strings.TrimSpace(strings.TrimLeft(line, "#")))
		var b strings.Builder
		for _, r := range h {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || ('a' <= r && r <= 'z') || ('0' <= r && r <= '9'):
				b.WriteRune(r)
			}
		}
		out = append(out, b.String())
	}
	return out
}
