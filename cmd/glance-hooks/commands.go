package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"
)

// groupCommand makes cmd, a command that only holds subcommands, behave as
// the root does: without a subcommand its usage goes to stderr and it exits
// 2; an unknown subcommand is a usage error naming the closest ones. (cobra
// itself prints help and exits 0 for both, so a typo in a Job's args would
// pass for success.)
func groupCommand(cmd *cobra.Command) *cobra.Command {
	cmd.Args = cobra.ArbitraryArgs
	cmd.SuggestionsMinimumDistance = 2 // what cobra uses for the root
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			cmd.SetOut(cmd.ErrOrStderr())
			_ = cmd.Usage()
			return &exitError{code: exitUsage}
		}
		msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
		if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
			msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t")
		}
		return &usageError{msg}
	}
	return cmd
}

// requireFlags reports every required flag the command line lacks in one
// usage error, in a stable order, so a caller fixes them in one go.
func requireFlags(names ...string) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, _ []string) error {
		var missing []string
		for _, n := range names {
			if v, err := cmd.Flags().GetString(n); err != nil || v == "" {
				missing = append(missing, "--"+n)
			}
		}
		if len(missing) == 0 {
			return nil
		}
		sort.Strings(missing)
		if len(missing) == 1 {
			return usageErrorf("%s is required", missing[0])
		}
		return usageErrorf("%s are required", strings.Join(missing, ", "))
	}
}
