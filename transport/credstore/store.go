// Package credstore keeps the service's serving certificate and hook token
// in the cluster: it makes them into the Secrets the chart renders empty
// when they hold nothing usable, renews the certificate before it expires,
// keeps the ValidatingWebhookConfiguration's caBundle on the CA that signed
// it, and writes the files the hook containers serve with. What to keep
// and what to make is decided in internal/credentials; this package only
// reads and writes.
//
// It needs get and update on the two Secrets and on the one webhook
// configuration, by name, and nothing else: it never creates a Secret, so
// the chart's RBAC can name every object it grants.
package credstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/dynamic"

	"github.com/c5c3/glance-hooks/internal/credentials"
)

// Config names what the Store keeps. An empty TLSSecret or TokenSecret
// leaves that one alone (cert-manager's certificate, a token of your own).
type Config struct {
	Namespace   string
	TLSSecret   string
	TokenSecret string
	// Webhook is the ValidatingWebhookConfiguration whose every webhook's
	// caBundle is kept on the CA; empty: none.
	Webhook string
	Policy  credentials.Policy
	// TLSDir gets tls.crt, tls.key and ca.crt; TokenFile the token. Empty:
	// not written.
	TLSDir, TokenFile string
}

// Store keeps Config's objects and files current.
type Store struct {
	client dynamic.Interface
	cfg    Config
	log    *slog.Logger
	now    func() time.Time
}

// New is a Store writing through client.
func New(client dynamic.Interface, cfg Config, log *slog.Logger) *Store {
	return &Store{client: client, cfg: cfg, log: log, now: time.Now}
}

// attempts bounds the read-decide-write rounds of one Sync: a conflict
// means another replica wrote first, and its result is read back and used.
const attempts = 5

// Sync makes the cluster and the files agree with the policy, once.
func (s *Store) Sync(ctx context.Context) error {
	if s.cfg.TLSSecret != "" {
		data, err := s.syncSecret(ctx, s.cfg.TLSSecret, s.planTLS)
		if err != nil {
			return err
		}
		if err := s.syncCABundle(ctx, data[credentials.KeyCA]); err != nil {
			return err
		}
		if err := s.writeTLS(data); err != nil {
			return err
		}
	}
	if s.cfg.TokenSecret != "" {
		data, err := s.syncSecret(ctx, s.cfg.TokenSecret, s.planToken)
		if err != nil {
			return err
		}
		if s.cfg.TokenFile != "" {
			return writeFile(s.cfg.TokenFile, data[credentials.KeyToken])
		}
	}
	return nil
}

// Run syncs now, failing when that fails, then every interval until ctx
// ends; a later failure is logged and retried at the next tick, while the
// files already written keep serving.
func (s *Store) Run(ctx context.Context, interval time.Duration) error {
	if err := s.Sync(ctx); err != nil {
		return err
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			if err := s.Sync(ctx); err != nil && ctx.Err() == nil {
				s.log.Error("keeping the serving certificate and hook token failed; retrying", "error", err.Error(), "retry_in", interval.String())
			}
		}
	}
}

// planner returns the data a Secret should hold, or nil to keep it, and why.
type planner func(data map[string][]byte) (map[string][]byte, string, error)

func (s *Store) planTLS(data map[string][]byte) (map[string][]byte, string, error) {
	now := s.now()
	d := credentials.Plan(data, s.cfg.Policy, now)
	if d.Action == credentials.Keep {
		return nil, d.Why, nil
	}
	out, err := credentials.Apply(d, data, s.cfg.Policy, now)
	if d.Action == credentials.NewCA && len(data[credentials.KeyCA]) > 0 {
		// Metacontroller reads a hook's CA when a controller starts only.
		s.log.Warn("the serving certificate's CA is replaced: restart Metacontroller so it trusts the new one", "why", d.Why)
	}
	return out, string(d.Action) + ": " + d.Why, err
}

func (s *Store) planToken(data map[string][]byte) (map[string][]byte, string, error) {
	if credentials.TokenUsable(data[credentials.KeyToken]) {
		return nil, "", nil
	}
	tok, err := credentials.NewToken()
	if err != nil {
		return nil, "", err
	}
	out := map[string][]byte{}
	for k, v := range data {
		out[k] = v
	}
	out[credentials.KeyToken] = []byte(tok)
	return out, "no usable token", nil
}

// syncSecret reads the Secret, asks plan, and writes what it returns,
// reading again after a conflict. It returns the data now stored.
func (s *Store) syncSecret(ctx context.Context, name string, plan planner) (map[string][]byte, error) {
	secrets := s.client.Resource(secretResource).Namespace(s.cfg.Namespace)
	for range attempts {
		var secret corev1.Secret
		err := getInto(ctx, secrets, name, &secret)
		if apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("secret %s/%s does not exist: the chart renders it (empty) for this service to fill; run helm upgrade to put it back", s.cfg.Namespace, name)
		}
		if err != nil {
			return nil, fmt.Errorf("reading secret %s/%s: %w", s.cfg.Namespace, name, err)
		}
		want, why, err := plan(secret.Data)
		if err != nil {
			return nil, err
		}
		if want == nil {
			return secret.Data, nil
		}
		secret.Data = want
		err = update(ctx, secrets, &secret)
		if apierrors.IsConflict(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("writing secret %s/%s: %w", s.cfg.Namespace, name, err)
		}
		s.log.Info("secret written", "secret", name, "namespace", s.cfg.Namespace, "why", why)
		return want, nil
	}
	return nil, fmt.Errorf("secret %s/%s kept changing under %d attempts to write it", s.cfg.Namespace, name, attempts)
}

// syncCABundle sets every webhook's caBundle of the configuration to ca.
func (s *Store) syncCABundle(ctx context.Context, ca []byte) error {
	if s.cfg.Webhook == "" {
		return nil
	}
	configs := s.client.Resource(webhookResource)
	for range attempts {
		var vwc admissionregistrationv1.ValidatingWebhookConfiguration
		err := getInto(ctx, configs, s.cfg.Webhook, &vwc)
		if err != nil {
			return fmt.Errorf("reading ValidatingWebhookConfiguration %s: %w", s.cfg.Webhook, err)
		}
		changed := false
		for i := range vwc.Webhooks {
			if !bytes.Equal(vwc.Webhooks[i].ClientConfig.CABundle, ca) {
				vwc.Webhooks[i].ClientConfig.CABundle, changed = ca, true
			}
		}
		if !changed {
			return nil
		}
		err = update(ctx, configs, &vwc)
		if apierrors.IsConflict(err) {
			continue
		}
		if err != nil {
			return fmt.Errorf("writing the caBundle of ValidatingWebhookConfiguration %s: %w", s.cfg.Webhook, err)
		}
		s.log.Info("webhook caBundle set to the serving certificate's CA", "webhook_configuration", s.cfg.Webhook)
		return nil
	}
	return fmt.Errorf("ValidatingWebhookConfiguration %s kept changing under %d attempts to write it", s.cfg.Webhook, attempts)
}

func (s *Store) writeTLS(data map[string][]byte) error {
	if s.cfg.TLSDir == "" {
		return nil
	}
	// The key before the certificate: the server reloads when the
	// certificate's file changes and then finds the pair complete.
	for _, k := range []string{credentials.KeyKey, credentials.KeyCert, credentials.KeyCA} {
		if err := writeFile(filepath.Join(s.cfg.TLSDir, k), data[k]); err != nil {
			return err
		}
	}
	return nil
}

// writeFile replaces path with data at once (a rename in the same
// directory), so a reader sees the old or the new content, never half;
// unchanged content is not rewritten, so the server does not reload.
func writeFile(path string, data []byte) error {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return nil
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	// Owner and group: the pod's containers share its fsGroup.
	if err := tmp.Chmod(0o440); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
