package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/c5c3/glance-hooks/internal/buildinfo"
)

func versionLine() string { return buildinfo.Get().String() }

func newVersionCommand() *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit, Go version and platform of this build",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			info := buildinfo.Get()
			switch output {
			case "":
				fmt.Fprintln(cmd.OutOrStdout(), info.String())
			case "json":
				out, _ := json.Marshal(info)
				fmt.Fprintf(cmd.OutOrStdout(), "%s\n", out)
			default:
				return usageErrorf("-o must be json or left out, not %q", output)
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "json: print the fields as one JSON object")
	return cmd
}
