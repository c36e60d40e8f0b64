package main

import (
	"github.com/spf13/cobra"

	"github.com/c5c3/glance-hooks/simulate/render"
)

const renderLong = `Render reads ControlPlanes, Glances, GlanceBackends and Secrets (YAML or
JSON; each -f is a file, a directory of *.yaml/*.yml/*.json read in name
order, or - for stdin), admits each object with the validate hook's rules,
runs the hooks in-process the way Metacontroller chains them until nothing
changes, and writes every resulting object to stdout (Secret values
redacted) and each parent's conditions to stderr. No cluster is needed.

Fields the CRDs do not define are refused, as kubectl apply refuses them.
An object given twice with the same content is read once; with different
content it is refused. render runs no pods: Deployment rollouts are
simulated, and the conditions that report them say so.

With --diff it renders BEFORE, applies AFTER on top (objects of BEFORE that
AFTER leaves out are deleted), runs again, and prints which objects would be
created, changed or deleted, and whether each Glance's pods would roll.

Exit codes:
  0  rendered and converged (--diff: no difference)
  1  --diff: the inputs render differently
  2  usage error
  3  an input cannot be read or is not accepted (malformed, unknown kind or
     field, no name, given twice with different content)
  4  an object was refused by admission
  5  no convergence within --max-rounds (the output is still written)
  6  a hook failed, or the output could not be written
  7  --check: a parent's Ready condition is not True`

func newRenderCommand() *cobra.Command {
	c := render.Command{}
	cmd := &cobra.Command{
		Use:   "render -f PATH [-f PATH ...] [flags]\n  glance-hooks render --diff -f BEFORE -f AFTER [flags]",
		Short: "Run the hooks offline on YAML and print what the cluster would get",
		Long:  renderLong,
		Example: `  glance-hooks render -f examples/controlplane.yaml
  glance-hooks render --check -f examples/
  glance-hooks render --diff -f examples/controlplane.yaml -f examples/edits/controlplane-switched.yaml`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageErrorf("unexpected argument %q: give inputs with -f", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			err := c.Run(cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr())
			code := render.ExitCode(err)
			switch {
			case err == nil:
				return nil
			case code == render.ExitUsage:
				return &usageError{err.Error()}
			case code == render.ExitDifferent:
				return &exitError{code: code}
			}
			return &exitError{code: code, err: err}
		},
	}
	f := cmd.Flags()
	f.StringArrayVarP(&c.Paths, "filename", "f", nil, "input file, directory or - (stdin); repeatable; exactly two with --diff")
	f.StringVarP(&c.Namespace, "namespace", "n", "default", "namespace of objects that name none")
	f.StringVarP(&c.Format, "output", "o", render.FormatYAML, "output format: yaml (a --- stream) or json (a v1 List)")
	f.IntVar(&c.Options.MaxRounds, "max-rounds", render.DefaultMaxRounds, "rounds of hook runs before giving up")
	f.BoolVar(&c.Print.ShowSecrets, "show-secrets", false, "print Secret data instead of <redacted: N bytes>")
	f.BoolVar(&c.Print.KeepServerFields, "keep-server-fields", false, "keep uids, resourceVersion, generation, creation times, owner uids and last-applied annotations")
	f.BoolVar(&c.Diff, "diff", false, "compare two inputs: -f BEFORE -f AFTER")
	f.BoolVar(&c.RequireReady, "check", false, "exit 7 when any ControlPlane, Glance or GlanceBackend is not Ready")
	f.BoolVar(&c.Quiet, "quiet", false, "do not print the conditions table and summary on stderr")
	return cmd
}
