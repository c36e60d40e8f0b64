package main

import (
	"log/slog"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/dynamic"

	"github.com/c5c3/glance-hooks/transport/credstore"
	"github.com/c5c3/glance-hooks/transport/kube"
)

// credentialsOptions are the credentials command's flags.
type credentialsOptions struct {
	cfg                         credstore.Config
	caDays, certDays, renewDays int
	kubeconfig                  string
	every                       time.Duration
}

func newCredentialsCommand() *cobra.Command {
	var o credentialsOptions
	cmd := &cobra.Command{
		Use:   "credentials --namespace NS [--tls-secret NAME --host NAME ...] [--token-secret NAME] [flags]",
		Short: "Keep the serving certificate and the hook token in their Secrets, the webhook's caBundle and the files",
		Long: `Credentials fills the Secrets the chart renders empty: --tls-secret with a CA
and a serving certificate for every --host (kept while valid, renewed
--renew-before-days before it expires, signed by the same CA), and
--token-secret with a random hook token (kept once made). It sets the
caBundle of every webhook of --webhook-configuration to that CA, and writes
tls.crt, tls.key and ca.crt into --tls-dir and the token to --token-file,
where serve reads them. It needs get and update on those objects only.
With --every it then checks again at that interval until SIGTERM (a
replica that renews first wins; the others take its result).`,
		Args:    noArgs,
		PreRunE: requireFlags("namespace"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.check(); err != nil {
				return err
			}
			cfg, src, err := kube.RESTConfig(o.kubeconfig)
			if err != nil {
				return err
			}
			client, err := dynamic.NewForConfig(cfg)
			if err != nil {
				return err
			}
			log := slog.New(slog.NewJSONHandler(cmd.ErrOrStderr(), nil))
			log.Info("keeping credentials", "api", string(src), "namespace", o.cfg.Namespace, "tls_secret", o.cfg.TLSSecret, "token_secret", o.cfg.TokenSecret)
			store := credstore.New(client, o.cfg, log)
			if o.every == 0 {
				return store.Sync(cmd.Context())
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM, syscall.SIGINT)
			defer stop()
			return store.Run(ctx, o.every)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.cfg.Namespace, "namespace", "", "namespace of the Secrets")
	f.StringVar(&o.cfg.TLSSecret, "tls-secret", "", "Secret to keep the CA (ca.crt, ca.key) and serving certificate (tls.crt, tls.key) in; empty: none")
	f.StringVar(&o.cfg.TokenSecret, "token-secret", "", "Secret to keep the hook token in (key token); empty: none")
	f.StringVar(&o.cfg.Webhook, "webhook-configuration", "", "ValidatingWebhookConfiguration whose caBundle is kept on the CA; empty: none")
	f.StringArrayVar(&o.cfg.Policy.Hosts, "host", nil, "DNS name or IP address the serving certificate is for; repeatable, the first is its common name")
	f.IntVar(&o.caDays, "ca-validity-days", 3650, "lifetime of a new CA; Metacontroller reads the CA when a controller starts only, so it is long")
	f.IntVar(&o.certDays, "cert-validity-days", 365, "lifetime of a new serving certificate")
	f.IntVar(&o.renewDays, "renew-before-days", 30, "renew the serving certificate this many days before it expires")
	f.StringVar(&o.cfg.TLSDir, "tls-dir", "", "directory to write tls.crt, tls.key and ca.crt to; empty: none")
	f.StringVar(&o.cfg.TokenFile, "token-file", "", "file to write the hook token to; empty: none")
	f.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig; default KUBECONFIG, then the in-cluster service account")
	f.DurationVar(&o.every, "every", 0, "check again at this interval until SIGTERM; 0: once, then exit")
	return cmd
}

// check turns the day flags into the policy and reports what cannot work.
func (o *credentialsOptions) check() error {
	day := 24 * time.Hour
	p := &o.cfg.Policy
	p.CAValidity, p.CertValidity, p.RenewBefore = time.Duration(o.caDays)*day, time.Duration(o.certDays)*day, time.Duration(o.renewDays)*day
	if o.cfg.TLSSecret == "" && o.cfg.TokenSecret == "" {
		return usageErrorf("nothing to keep: give --tls-secret, --token-secret or both")
	}
	if o.every < 0 {
		return usageErrorf("--every cannot be negative")
	}
	if o.cfg.TLSSecret == "" {
		return nil
	}
	if err := p.Check(); err != nil {
		return usageErrorf("--tls-secret: %v", err)
	}
	return nil
}
