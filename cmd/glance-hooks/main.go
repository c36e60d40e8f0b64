// Command glance-hooks serves the Metacontroller hooks that run Glance with
// several S3 stores.
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "render" {
		os.Exit(renderCommand(os.Args[2:], os.Stdin, os.Stdout, os.Stderr))
	}
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "glance-hooks:", err)
		os.Exit(1)
	}
}

const usage = `usage: glance-hooks <command> [flags]

commands:
  serve    serve the hooks over HTTP for Metacontroller (see serve -h)
  render   run the hooks offline on YAML and print what the cluster would get (see render -h)
`

func run(args []string) error {
	if len(args) == 0 {
		fmt.Fprint(os.Stderr, usage)
		return fmt.Errorf("no command given")
	}
	switch args[0] {
	case "serve":
		return serve(args[1:])
	case "-h", "--help", "help":
		fmt.Print(usage)
		return nil
	default:
		fmt.Fprint(os.Stderr, usage)
		return fmt.Errorf("unknown command %q", args[0])
	}
}
