package main

import (
	"github.com/spf13/cobra"
)

// completionShells are the shells cobra writes a completion script for
// that needs nothing but the shell itself.
var completionShells = []string{"bash", "zsh", "fish"}

func newCompletionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "completion (bash | zsh | fish)",
		Short: "Print the shell completion script",
		Long: `Print a completion script for bash, zsh or fish on stdout. For example:

  source <(glance-hooks completion bash)
  glance-hooks completion zsh > "${fpath[1]}/_glance-hooks"
  glance-hooks completion fish > ~/.config/fish/completions/glance-hooks.fish`,
		ValidArgs: completionShells,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErrorf("completion takes one shell: bash, zsh or fish")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			out, root := cmd.OutOrStdout(), cmd.Root()
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(out, true)
			case "zsh":
				return root.GenZshCompletion(out)
			case "fish":
				return root.GenFishCompletion(out, true)
			}
			return usageErrorf("completion: unknown shell %q: bash, zsh or fish", args[0])
		},
	}
}
