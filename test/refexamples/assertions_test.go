package refexamples

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/simulate/chain"
	"github.com/c5c3/glance-hooks/simulate/render"
	"github.com/c5c3/glance-hooks/test/docsection"
)

// TestReferenceSuitesAssertions: what the reference's suites wait for
// (suiteAssertions), step by step, holds in the in-process walk of each
// suite's set, the suite's patches and deletions applied as it applies
// them. A check this project documents another value for asserts that
// value, and its documentation must name both words.
func TestReferenceSuitesAssertions(t *testing.T) {
	sets := Sets(t)
	differ := documentedDifferences(t)
	checked, skipped := 0, 0
	for _, s := range suiteAssertions() {
		files, ok := sets[s.set]
		require.True(t, ok, "suite %s: no set %s", s.from, s.set)
		t.Run(s.set, func(t *testing.T) {
			w := newWalk(t, s, files)
			for _, st := range s.steps {
				if st.change != nil {
					require.NoError(t, st.change(w), "%s %s: the change", s.from, st.from)
				}
				for _, c := range st.checks {
					if c.skip != "" {
						skipped++
						continue
					}
					checked++
					w.check(st.from, c)
					if c.condition != "" && c.here != "" {
						requireDocumented(t, differ, c)
					}
				}
			}
		})
	}
	t.Logf("%d suites: %d assertions checked, %d left to a real cluster", len(suiteAssertions()), checked, skipped)
}

// walk is one suite's set in the in-process cluster, as its steps left it.
type walk struct {
	t     *testing.T
	suite string
	docs  []render.Doc
	st    *render.State
	// noted are values a step remembered for a later step to compare.
	noted map[string]string
}

func newWalk(t *testing.T, s suite, files []string) *walk {
	examples := Published(t, files)
	docs := append(Scaffold(examples), examples...)
	st, err := render.Render(docs, render.Options{})
	require.NoError(t, err, "admitted and converged")
	return &walk{t: t, suite: s.from, docs: docs, st: st, noted: map[string]string{}}
}

// object is the object of kind and name in the suite's namespace, if any.
func (w *walk) object(kind, name string) (chain.Object, bool) {
	for _, o := range w.st.Objects() {
		if o["kind"] == kind && str(o, "metadata", "name") == name {
			return o, true
		}
	}
	return nil, false
}

func (w *walk) check(step string, c check) {
	w.t.Helper()
	got := w.observe(c)
	want := c.want
	if c.here != "" {
		want = c.here
	}
	if c.note != "" {
		w.noted[c.note] = got
	}
	if !matches(want, got, w.noted) {
		w.t.Errorf("suite %s, %s: %s %s, %s: want %s, got %s%s", w.suite, step, c.kind, c.name, c.what(), describe(want, w.noted), got, c.reference())
	}
}

// observe is the value the check reads, as text.
func (w *walk) observe(c check) string {
	o, ok := w.object(c.kind, c.name)
	switch {
	case c.prefix:
		return w.namedWithPrefix(c.kind, c.name)
	case !ok:
		return none
	case c.condition != "":
		return conditionOf(o, c.condition, strings.Contains(c.want, "/"))
	case c.mounted != "":
		return w.mountedFile(o, c)
	}
	if c.herePath != nil {
		return text(at(o, c.herePath))
	}
	return text(at(o, c.path))
}

// none is what a check reads where there is nothing.
const none = "<none>"

// conditionOf is "status/reason" of the condition (only "status" when the
// suite waits for no reason).
func conditionOf(o chain.Object, typ string, withReason bool) string {
	for _, c := range render.ConditionsOf(o) {
		if c.Type == typ {
			if withReason {
				return c.Status + "/" + c.Reason
			}
			return c.Status
		}
	}
	return none
}

// namedWithPrefix is "present" when an object of kind is named prefix...
func (w *walk) namedWithPrefix(kind, prefix string) string {
	for _, o := range w.st.Objects() {
		if o["kind"] == kind && strings.HasPrefix(str(o, "metadata", "name"), prefix) {
			return "present"
		}
	}
	return "absent"
}

// mountedFile reads a file of the Deployment's volume (a ConfigMap's or a
// Secret's key) and reports whether a line matches the check's pattern.
func (w *walk) mountedFile(deploy chain.Object, c check) string {
	vol := at(deploy, []string{"spec", "template", "spec", "volumes", "[name=" + c.mounted + "]"})
	m, _ := vol.(map[string]any)
	var content string
	if cm, ok := m["configMap"].(map[string]any); ok {
		o, _ := w.object("ConfigMap", fmt.Sprint(cm["name"]))
		content = text(at(o, []string{"data", c.file}))
	} else if sec, ok := m["secret"].(map[string]any); ok {
		o, _ := w.object("Secret", fmt.Sprint(sec["secretName"]))
		raw, _ := base64.StdEncoding.DecodeString(text(at(o, []string{"data", c.file})))
		content = string(raw)
	}
	if regexp.MustCompile("(?m)" + c.line).MatchString(content) {
		return "present"
	}
	return "absent"
}

// describe says what a want of matches means.
func describe(want string, noted map[string]string) string {
	switch {
	case strings.HasPrefix(want, "!="):
		return fmt.Sprintf("other than %s (noted %s)", noted[want[2:]], want[2:])
	case strings.HasPrefix(want, "="):
		return fmt.Sprintf("%s (noted %s)", noted[want[1:]], want[1:])
	case strings.HasPrefix(want, "~"):
		return "a value holding " + want[1:]
	case strings.HasPrefix(want, ">"):
		return "a number above " + want[1:]
	}
	return want
}

// matches compares a check's want with what was read: ">N" is a number
// above N, "~s" a value holding s, "=note" and "!=note" the value a step noted, or not it.
func matches(want, got string, noted map[string]string) bool {
	switch {
	case strings.HasPrefix(want, "~"):
		return strings.Contains(got, want[1:])
	case strings.HasPrefix(want, ">"):
		n, err := strconv.Atoi(got)
		limit, _ := strconv.Atoi(want[1:])
		return err == nil && n > limit
	case strings.HasPrefix(want, "!="):
		return got != noted[want[2:]]
	case strings.HasPrefix(want, "="):
		return got == noted[want[1:]]
	}
	return want == got
}

// at walks a path: a key, "[k=v]" (the first item of a list whose k is
// v), "[N]" (an index) or "#" (the length of the list there).
func at(v any, path []string) any {
	for _, p := range path {
		switch {
		case p == "#":
			l, _ := v.([]any)
			return len(l)
		case strings.HasPrefix(p, "[") && strings.Contains(p, "="):
			k, val, _ := strings.Cut(strings.Trim(p, "[]"), "=")
			v = pick(v, k, val)
		case strings.HasPrefix(p, "["):
			i, _ := strconv.Atoi(strings.Trim(p, "[]"))
			l, _ := v.([]any)
			if i >= len(l) {
				return nil
			}
			v = l[i]
		default:
			m, _ := v.(map[string]any)
			v = m[p]
		}
	}
	return v
}

func pick(v any, k, val string) any {
	l, _ := v.([]any)
	for _, it := range l {
		if m, ok := it.(map[string]any); ok && fmt.Sprint(m[k]) == val {
			return m
		}
	}
	return nil
}

// text prints a value as a check compares it: a scalar as itself, anything
// else as JSON, nothing as none.
func text(v any) string {
	switch x := v.(type) {
	case nil:
		return none
	case string:
		return x
	case map[string]any, []any:
		b, _ := json.Marshal(x)
		return string(b)
	}
	return fmt.Sprint(v)
}

// documentedDifferences is docs/conditions.md's table of the reference's
// words that differ.
func documentedDifferences(t *testing.T) string {
	return docsection.After(t, "../../docs/conditions.md", "## The reference's words that differ")
}

// requireDocumented: a reason of the reference's that a Glance or
// GlanceBackend reports under another word is in the table, with that word.
func requireDocumented(t *testing.T, table string, c check) {
	t.Helper()
	_, refReason, _ := strings.Cut(c.want, "/")
	_, hereReason, _ := strings.Cut(c.here, "/")
	for _, row := range strings.Split(table, "\n") {
		if strings.Contains(row, "`"+refReason+"`") && strings.Contains(row, "`"+hereReason+"`") {
			return
		}
	}
	t.Errorf("%s %s, %s: the reference's %s is reported as %s here, and docs/conditions.md does not say so", c.kind, c.name, c.what(), c.want, c.here)
}
