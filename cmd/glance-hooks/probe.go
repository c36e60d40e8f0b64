package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/c5c3/glance-hooks/cmd/glance-hooks/probe"
)

// probeOptions are probe's flags.
type probeOptions struct {
	caFile, serverName, validateURL, namespace string
	gets                                       []string
	timeout                                    time.Duration
}

func newProbeCommand() *cobra.Command {
	var o probeOptions
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
		RunE: func(cmd *cobra.Command, _ []string) error { return o.run(cmd) },
	}
	f := cmd.Flags()
	f.StringVar(&o.caFile, "ca-file", "", "PEM CA the service's certificate must chain to")
	f.StringVar(&o.serverName, "tls-server-name", "", "name to check the certificate for, when the URLs name an address")
	f.StringArrayVar(&o.gets, "get", nil, "URL to GET, wanting 200; repeatable")
	f.StringVar(&o.validateURL, "validate", "", "URL of /validate to ask one question")
	f.StringVar(&o.namespace, "namespace", "default", "namespace of the ControlPlane in the question")
	f.DurationVar(&o.timeout, "timeout", 10*time.Second, "bound on each check")
	return cmd
}

// run makes every check, printing one line each, and fails when one did.
func (o *probeOptions) run(cmd *cobra.Command) error {
	// Every missing flag at once, not one per run.
	var missing []string
	if o.caFile == "" {
		missing = append(missing, "--ca-file is required: the probe trusts no other CA")
	}
	if len(o.gets) == 0 && o.validateURL == "" {
		missing = append(missing, "nothing to check: give --get URL or --validate URL")
	}
	if len(missing) > 0 {
		return usageErrorf("%s", strings.Join(missing, "; "))
	}
	client, err := probe.Client(o.caFile, o.serverName, o.timeout)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(cmd.Context(), time.Duration(len(o.gets)+1)*o.timeout)
	defer cancel()
	out := cmd.OutOrStdout()
	failed := 0
	for _, u := range o.gets {
		if err := probe.Get(ctx, client, u); err != nil {
			fmt.Fprintf(out, "FAIL GET %s: %v\n", u, err)
			failed++
			continue
		}
		fmt.Fprintf(out, "ok   GET %s\n", u)
	}
	if o.validateURL != "" {
		msg, err := probe.Validate(ctx, client, o.validateURL, o.namespace)
		if err != nil {
			fmt.Fprintf(out, "FAIL POST %s: %v\n", o.validateURL, err)
			failed++
		} else {
			fmt.Fprintf(out, "ok   POST %s: refused as it should be: %s\n", o.validateURL, msg)
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d checks failed", failed, len(o.gets)+min(1, len(o.validateURL)))
	}
	return nil
}
