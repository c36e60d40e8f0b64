package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/c5c3/glance-hooks/internal/simulate/chain"
	"github.com/c5c3/glance-hooks/internal/simulate/render"
)

const renderUsage = `usage: glance-hooks render -f PATH [-f PATH ...] [flags]
       glance-hooks render --diff -f BEFORE -f AFTER [flags]

Render reads ControlPlanes, Glances, GlanceBackends and Secrets (YAML or
JSON; PATH is a file, a directory of *.yaml/*.yml/*.json read in name order,
or - for stdin), admits each object with the validate hook's rules, runs the
hooks in-process the way Metacontroller chains them until nothing changes,
and writes every resulting object to stdout (Secret values redacted) and each
parent's conditions to stderr. No cluster is needed.

With --diff it renders BEFORE, applies AFTER on top (objects of BEFORE that
AFTER leaves out are deleted), runs again, and prints which objects would be
created, changed or deleted, and whether each Glance's pods would roll.

Exit codes: 0 rendered (--diff: no difference), 1 --diff found differences,
2 usage error, 3 unreadable or unacceptable input, 4 an object was refused
by admission, 5 no convergence within --max-rounds (output still written),
6 a hook failed or output could not be written.

flags:
`

// pathList collects a repeatable -f.
type pathList []string

func (p *pathList) String() string     { return strings.Join(*p, ",") }
func (p *pathList) Set(v string) error { *p = append(*p, v); return nil }

// renderCommand runs `glance-hooks render` and returns its exit code.
func renderCommand(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("render", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var paths pathList
	fs.Var(&paths, "f", "input file, directory or - (stdin); repeatable")
	fs.Var(&paths, "filename", "same as -f")
	namespace := fs.String("namespace", "default", "namespace of objects that name none")
	fs.StringVar(namespace, "n", "default", "same as --namespace")
	output := fs.String("o", "yaml", "output format: yaml or json")
	maxRounds := fs.Int("max-rounds", render.DefaultMaxRounds, "rounds of hook runs before giving up")
	showSecrets := fs.Bool("show-secrets", false, "print Secret data instead of <redacted: N bytes>")
	keepServer := fs.Bool("keep-server-fields", false, "keep uids, resourceVersion, generation, creation times, owner uids and last-applied annotations")
	diff := fs.Bool("diff", false, "compare two inputs: -f BEFORE -f AFTER")
	quiet := fs.Bool("quiet", false, "do not print the conditions table and summary on stderr")
	fs.Usage = func() {
		fmt.Fprint(stderr, renderUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return render.ExitOK
		}
		return render.ExitUsage
	}
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "glance-hooks render: "+format+"\n", a...)
		fmt.Fprintln(stderr, "run glance-hooks render -h for help")
		return render.ExitUsage
	}
	switch {
	case fs.NArg() > 0:
		return usageErr("unexpected argument %q: give inputs with -f", fs.Arg(0))
	case len(paths) == 0:
		return usageErr("no input: give -f FILE, -f DIR or -f -")
	case *output != "yaml" && *output != "json":
		return usageErr("-o must be yaml or json, not %q", *output)
	case *maxRounds < 1:
		return usageErr("--max-rounds must be at least 1")
	case *diff && len(paths) != 2:
		return usageErr("--diff needs exactly two inputs: -f BEFORE -f AFTER")
	case *diff && paths[0] == "-" && paths[1] == "-":
		return usageErr("--diff can read standard input for one of BEFORE and AFTER, not both")
	case *diff && *output != "yaml":
		return usageErr("--diff prints a text report; -o does not apply")
	}
	opts := render.Options{MaxRounds: *maxRounds}
	out := render.OutputOptions{ShowSecrets: *showSecrets, KeepServerFields: *keepServer}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "glance-hooks render: %v\n", err)
		return render.ExitCode(err)
	}
	// conditions ends every run that got as far as rendering: the parents'
	// conditions, then how the run went.
	conditions := func(objs []chain.Object, summary string) {
		if !*quiet {
			_ = render.WriteConditions(stderr, objs)
			fmt.Fprintln(stderr, summary)
		}
	}

	if *diff {
		before, err := render.ReadPaths(paths[:1], stdin, *namespace)
		if err != nil {
			return fail(err)
		}
		after, err := render.ReadPaths(paths[1:], stdin, *namespace)
		if err != nil {
			return fail(err)
		}
		state, err := render.Render(before, opts)
		if err != nil && !render.IsNotConverged(err) {
			return fail(fmt.Errorf("rendering BEFORE: %w", err))
		}
		beforeObjs := state.Objects()
		beforeRounds := state.Rounds
		notConverged := err
		if err := state.Update(after, opts); err != nil {
			if !render.IsNotConverged(err) {
				return fail(fmt.Errorf("applying AFTER: %w", err))
			}
			notConverged = err
		}
		afterObjs := state.Objects()
		d := render.Compare(beforeObjs, afterObjs, out)
		if err := render.WriteDiff(stdout, d); err != nil {
			return fail(err)
		}
		conditions(afterObjs, fmt.Sprintf("%s before, %d after; %s", render.Plural(len(beforeObjs), "object"), len(afterObjs),
			rounds("BEFORE", beforeRounds, notConverged == nil || state.Converged)+", "+rounds("AFTER", state.Rounds, state.Converged)))
		if notConverged != nil {
			return fail(notConverged)
		}
		if d.Different() {
			return render.ExitDifferent
		}
		return render.ExitOK
	}

	docs, err := render.ReadPaths(paths, stdin, *namespace)
	if err != nil {
		return fail(err)
	}
	if len(docs) == 0 {
		names := make([]string, len(paths))
		for i, p := range paths {
			names[i] = p
			if p == "-" {
				names[i] = render.StdinName
			}
		}
		return fail(&render.InputError{Source: strings.Join(names, ", "), Msg: "no objects found"})
	}
	state, err := render.Render(docs, opts)
	if err != nil && !render.IsNotConverged(err) {
		return fail(err)
	}
	objs := state.Objects()
	write := render.WriteYAML
	if *output == "json" {
		write = render.WriteJSON
	}
	if werr := write(stdout, objs, out); werr != nil {
		return fail(werr)
	}
	conditions(objs, fmt.Sprintf("%s; %s", render.Plural(len(objs), "object"), rounds("render", state.Rounds, state.Converged)))
	if err != nil {
		return fail(err)
	}
	return render.ExitOK
}

func rounds(what string, n int, converged bool) string {
	if !converged {
		return fmt.Sprintf("%s stopped at the round limit (%d)", what, n)
	}
	return fmt.Sprintf("%s converged after %s", what, render.Plural(n, "round"))
}
