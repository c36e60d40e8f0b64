// Command glance-hooks serves the Metacontroller hooks that run Glance with
// several S3 stores, and renders what they would do offline.
//
// Every command behaves the same way: help goes to stdout and exits 0, a
// usage error goes to stderr and exits 2, flags are written --flag.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
)

// Exit codes every command shares; render adds its own (see render --help).
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

func main() {
	os.Exit(execute(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// usageError is a command line that cannot run: exit 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usageErrorf(format string, a ...any) error { return &usageError{fmt.Sprintf(format, a...)} }

// exitError carries a command's own exit code (render's), its message
// already decided.
type exitError struct {
	code int
	err  error // nil: nothing to print
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

// execute runs one command line and returns the process's exit code.
func execute(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRootCommand()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	if len(args) == 0 {
		// Not cobra's help-and-exit-0: a command line without a command is
		// a usage error.
		root.SetOut(stderr)
		_ = root.Usage()
		return exitUsage
	}
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return exitOK
	}
	if cmd == root {
		// Only a usage error reaches the top level: an unknown command, or a
		// flag the root does not have.
		err = &usageError{strings.TrimSpace(err.Error())}
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", cmd.CommandPath(), ee.err)
		}
		return ee.code
	}
	fmt.Fprintf(stderr, "%s: %v\n", cmd.CommandPath(), err)
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", cmd.CommandPath())
		return exitUsage
	}
	return exitFailure
}

func newRootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "glance-hooks",
		Short: "Metacontroller hooks that run OpenStack Glance with several S3 image stores",
		Long: `glance-hooks serves the Metacontroller hooks that run OpenStack Glance with
several S3 image stores on Kubernetes, and the validating admission webhook
for ControlPlane, Glance and GlanceBackend. render runs the same hooks
offline and prints what the cluster would get.`,
		Version:           versionLine(),
		SilenceErrors:     true,
		SilenceUsage:      true,
		CompletionOptions: cobra.CompletionOptions{DisableDefaultCmd: true},
	}
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{err.Error()} })
	root.SetHelpCommand(newHelpCommand())
	root.AddCommand(newServeCommand(), newCredentialsCommand(), newRenderCommand(), newProbeCommand(), newKeystoneCommand(), newVersionCommand(), newCompletionCommand())
	return root
}

// newHelpCommand is `help [command]`: the command's help on stdout, and a
// usage error for a command that does not exist (cobra's own help command
// would print the top-level help and exit 0).
func newHelpCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		RunE: func(cmd *cobra.Command, args []string) error {
			target, rest, err := cmd.Root().Find(args)
			if err != nil || len(rest) > 0 {
				return usageErrorf("no help for %q: unknown command", strings.Join(args, " "))
			}
			return target.Help()
		},
	}
}

// noArgs refuses positional arguments as a usage error.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usageErrorf("%s takes no arguments, got %q", cmd.Name(), args[0])
	}
	return nil
}
