package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

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

// renderCommand parses the flags of `glance-hooks render`, runs it and
// returns its exit code.
func renderCommand(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("render", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c render.Command
	fs.Var((*pathList)(&c.Paths), "f", "input file, directory or - (stdin); repeatable")
	fs.Var((*pathList)(&c.Paths), "filename", "same as -f")
	fs.StringVar(&c.Namespace, "namespace", "default", "namespace of objects that name none")
	fs.StringVar(&c.Namespace, "n", "default", "same as --namespace")
	fs.StringVar(&c.Format, "o", render.FormatYAML, "output format: yaml or json")
	fs.IntVar(&c.Options.MaxRounds, "max-rounds", render.DefaultMaxRounds, "rounds of hook runs before giving up")
	fs.BoolVar(&c.Print.ShowSecrets, "show-secrets", false, "print Secret data instead of <redacted: N bytes>")
	fs.BoolVar(&c.Print.KeepServerFields, "keep-server-fields", false, "keep uids, resourceVersion, generation, creation times, owner uids and last-applied annotations")
	fs.BoolVar(&c.Diff, "diff", false, "compare two inputs: -f BEFORE -f AFTER")
	fs.BoolVar(&c.Quiet, "quiet", false, "do not print the conditions table and summary on stderr")
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
	var err error
	if fs.NArg() > 0 {
		err = &render.UsageError{Msg: fmt.Sprintf("unexpected argument %q: give inputs with -f", fs.Arg(0))}
	} else {
		err = c.Run(stdin, stdout, stderr)
	}
	var usage *render.UsageError
	switch {
	case errors.Is(err, render.ErrDifferent):
	case errors.As(err, &usage):
		fmt.Fprintf(stderr, "glance-hooks render: %v\n", err)
		fmt.Fprintln(stderr, "run glance-hooks render -h for help")
	case err != nil:
		fmt.Fprintf(stderr, "glance-hooks render: %v\n", err)
	}
	return render.ExitCode(err)
}
