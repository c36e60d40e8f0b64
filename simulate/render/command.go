package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/simulate/chain"
)

// Output formats of a render.
const (
	FormatYAML = "yaml"
	FormatJSON = "json"
)

// Command is one `glance-hooks render` run, as its flags asked for it.
type Command struct {
	// Paths are the inputs: files, directories, or "-" for standard input.
	// With Diff they are exactly BEFORE and AFTER.
	Paths []string
	// Namespace is given to objects that name none.
	Namespace string
	// Format of the objects written: FormatYAML or FormatJSON.
	Format string
	// Diff compares two inputs instead of writing objects.
	Diff bool
	// Quiet leaves out the conditions table and the summary.
	Quiet bool
	// RequireReady (--check) makes a parent whose Ready condition is not
	// True an error, a *NotReadyError; with Diff, after AFTER.
	RequireReady bool
	// Options of the hook runs; Print of the objects written.
	Options Options
	Print   OutputOptions
}

// Check refuses a command that cannot run, with a *UsageError.
func (c Command) Check() error {
	switch {
	case len(c.Paths) == 0:
		return usageErr("no input: give -f FILE, -f DIR or -f -")
	case c.Format != FormatYAML && c.Format != FormatJSON:
		return usageErr("-o must be yaml or json, not %q", c.Format)
	case c.Options.MaxRounds < 1:
		return usageErr("--max-rounds must be at least 1")
	case c.Diff && len(c.Paths) != 2:
		return usageErr("--diff needs exactly two inputs: -f BEFORE -f AFTER")
	case c.Diff && c.Paths[0] == "-" && c.Paths[1] == "-":
		return usageErr("--diff can read standard input for one of BEFORE and AFTER, not both")
	case c.Diff && c.Format != FormatYAML:
		return usageErr("--diff prints a text report; -o does not apply")
	}
	return nil
}

// Run performs the command: every resulting object (with Diff, the
// difference) on stdout, then the parents' conditions and a summary on
// stderr. ExitCode of the error is the command's exit code; a Diff that
// finds differences returns ErrDifferent.
func (c Command) Run(stdin io.Reader, stdout, stderr io.Writer) error {
	if err := c.Check(); err != nil {
		return err
	}
	if c.Diff {
		return c.diff(stdin, stdout, stderr)
	}
	return c.render(stdin, stdout, stderr)
}

func (c Command) render(stdin io.Reader, stdout, stderr io.Writer) error {
	docs, err := ReadPaths(c.Paths, stdin, c.Namespace)
	if err != nil {
		return err
	}
	if len(docs) == 0 {
		return &InputError{Source: sourceNames(c.Paths), Msg: "no objects found"}
	}
	state, err := Render(docs, c.Options)
	if err != nil && !IsNotConverged(err) {
		return err
	}
	objs := state.Objects()
	write := WriteYAML
	if c.Format == FormatJSON {
		write = WriteJSON
	}
	if werr := write(stdout, objs, c.Print); werr != nil {
		return werr
	}
	c.summarize(stderr, objs, fmt.Sprintf("%s; %s", hook.Plural(len(objs), "object", "objects"), rounds("render", state.Rounds, state.Converged)))
	// A run that hit the round limit still shows the state it reached.
	if err != nil {
		return err
	}
	return c.requireReady(objs)
}

// diff renders BEFORE, applies AFTER on top of it and reports what changed.
func (c Command) diff(stdin io.Reader, stdout, stderr io.Writer) error {
	before, err := ReadPaths(c.Paths[:1], stdin, c.Namespace)
	if err != nil {
		return err
	}
	after, err := ReadPaths(c.Paths[1:], stdin, c.Namespace)
	if err != nil {
		return err
	}
	state, err := Render(before, c.Options)
	if err != nil && !IsNotConverged(err) {
		return fmt.Errorf("rendering BEFORE: %w", err)
	}
	beforeObjs, beforeRounds := state.Objects(), state.Rounds
	notConverged := err
	if err := state.Update(after, c.Options); err != nil {
		if !IsNotConverged(err) {
			return fmt.Errorf("applying AFTER: %w", err)
		}
		notConverged = err
	}
	afterObjs := state.Objects()
	d := Compare(beforeObjs, afterObjs, c.Print)
	if err := WriteDiff(stdout, d); err != nil {
		return err
	}
	c.summarize(stderr, afterObjs, fmt.Sprintf("%s before, %d after; %s", hook.Plural(len(beforeObjs), "object", "objects"), len(afterObjs),
		rounds("BEFORE", beforeRounds, notConverged == nil || state.Converged)+", "+rounds("AFTER", state.Rounds, state.Converged)))
	if notConverged != nil {
		return notConverged
	}
	if err := c.requireReady(afterObjs); err != nil {
		return err
	}
	if d.Different() {
		return ErrDifferent
	}
	return nil
}

// requireReady is RequireReady's verdict on the rendered objects.
func (c Command) requireReady(objs []chain.Object) error {
	if !c.RequireReady {
		return nil
	}
	if notReady := NotReady(objs); len(notReady) > 0 {
		return &NotReadyError{Parents: notReady}
	}
	return nil
}

// NotReady names every parent ("Kind namespace/name") whose Ready
// condition is not True, in output order.
func NotReady(objs []chain.Object) []string {
	var out []string
	for _, o := range objs {
		if !isParent(o) {
			continue
		}
		ready := false
		for _, c := range ConditionsOf(o) {
			if c.Type == hook.ConditionReady {
				ready = c.Status == "True"
			}
		}
		if !ready {
			out = append(out, refString(chain.RefOf(o)))
		}
	}
	return out
}

// summarize ends every run that got as far as rendering: the parents'
// conditions, then how the run went.
func (c Command) summarize(stderr io.Writer, objs []chain.Object, summary string) {
	if c.Quiet {
		return
	}
	_ = WriteConditions(stderr, objs)
	fmt.Fprintln(stderr, summary)
}

func rounds(what string, n int, converged bool) string {
	if !converged {
		return fmt.Sprintf("%s stopped at the round limit (%d)", what, n)
	}
	return fmt.Sprintf("%s converged after %s", what, hook.Plural(n, "round", "rounds"))
}

// sourceNames names the inputs in a message, standard input as StdinName.
func sourceNames(paths []string) string {
	names := make([]string, len(paths))
	for i, p := range paths {
		names[i] = p
		if p == "-" {
			names[i] = StdinName
		}
	}
	return strings.Join(names, ", ")
}
