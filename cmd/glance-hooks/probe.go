package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/c5c3/glance-hooks/internal/probe"
)

func newProbeCommand() *cobra.Command {
	var (
		caFile, serverName, validateURL, namespace string
		gets                                       []string
		timeout                                    time.Duration
	)
	cmd := &cobra.Command{
		Use:   "probe --ca-file FILE [--get URL ...] [--validate URL]",
		Short: "Check a running service over TLS, as the chart's helm test does",
		Long: `Probe fetches each --get URL (200 wanted) and asks the --validate URL one
question: a ControlPlane with two default stores, which the webhook must
refuse with the message this build's own rules give. Everything goes over
TLS, trusting only the CA in --ca-file. Exit 0 when every check passes, 1
when one fails.`,
		Example: `  glance-hooks probe --ca-file ca.crt \
    --get https://glance-hooks.glance-hooks.svc:8443/readyz \
    --validate https://glance-hooks.glance-hooks.svc:443/validate`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// Every missing flag at once, not one per run.
			var missing []string
			if caFile == "" {
				missing = append(missing, "--ca-file is required: the probe trusts no other CA")
			}
			if len(gets) == 0 && validateURL == "" {
				missing = append(missing, "nothing to check: give --get URL or --validate URL")
			}
			if len(missing) > 0 {
				return usageErrorf("%s", strings.Join(missing, "; "))
			}
			client, err := probe.Client(caFile, serverName, timeout)
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), time.Duration(len(gets)+1)*timeout)
			defer cancel()
			out := cmd.OutOrStdout()
			failed := 0
			for _, u := range gets {
				if err := probe.Get(ctx, client, u); err != nil {
					fmt.Fprintf(out, "FAIL GET %s: %v\n", u, err)
					failed++
					continue
				}
				fmt.Fprintf(out, "ok   GET %s\n", u)
			}
			if validateURL != "" {
				msg, err := probe.Validate(ctx, client, validateURL, namespace)
				if err != nil {
					fmt.Fprintf(out, "FAIL POST %s: %v\n", validateURL, err)
					failed++
				} else {
					fmt.Fprintf(out, "ok   POST %s: refused as it should be: %s\n", validateURL, msg)
				}
			}
			if failed > 0 {
				return fmt.Errorf("%d of %d checks failed", failed, len(gets)+min(1, len(validateURL)))
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&caFile, "ca-file", "", "PEM CA the service's certificate must chain to")
	f.StringVar(&serverName, "tls-server-name", "", "name to check the certificate for, when the URLs name an address")
	f.StringArrayVar(&gets, "get", nil, "URL to GET, wanting 200; repeatable")
	f.StringVar(&validateURL, "validate", "", "URL of /validate to ask one question")
	f.StringVar(&namespace, "namespace", "default", "namespace of the ControlPlane in the question")
	f.DurationVar(&timeout, "timeout", 10*time.Second, "bound on each check")
	return cmd
}
