package credentials

import (
	"crypto/x509"
	"encoding/pem"
	"strings"
	"testing"
	"time"
)

var (
	now    = time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	policy = Policy{Hosts: []string{"glance-hooks.ns.svc", "glance-hooks.ns", "127.0.0.1"},
		CAValidity: 10 * 365 * 24 * time.Hour, CertValidity: 365 * 24 * time.Hour, RenewBefore: 30 * 24 * time.Hour}
)

// fresh is a Secret's data as Apply makes it from nothing at t.
func fresh(t *testing.T, p Policy, at time.Time) map[string][]byte {
	t.Helper()
	data, err := Apply(Decision{Action: NewCA}, nil, p, at)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func with(data map[string][]byte, k string, v []byte) map[string][]byte {
	out := map[string][]byte{}
	for key, val := range data {
		out[key] = val
	}
	out[k] = v
	return out
}

func TestPlan(t *testing.T) {
	good := fresh(t, policy, now)
	other := fresh(t, policy, now)
	shortCA := policy
	shortCA.CAValidity = policy.CertValidity + time.Hour
	cases := map[string]struct {
		reason string
		data   map[string][]byte
		at     time.Time
		hosts  []string
		want   Action
	}{
		"Empty":           {"a Secret with nothing in it (the chart renders it so) gets a CA", nil, now, nil, NewCA},
		"Fresh":           {"a second start keeps what the first made", good, now, nil, Keep},
		"MonthsLater":     {"nothing is renewed without cause", good, now.Add(300 * 24 * time.Hour), nil, Keep},
		"NearExpiry":      {"a certificate inside the renewal window is renewed with the same CA", good, now.Add(340 * 24 * time.Hour), nil, RenewCert},
		"Expired":         {"an expired certificate is renewed", good, now.Add(400 * 24 * time.Hour), nil, RenewCert},
		"CANearItsEnd":    {"a CA that cannot cover a new certificate's life is replaced", fresh(t, shortCA, now), now.Add(2 * time.Hour), nil, NewCA},
		"CAKeyMissing":    {"without ca.key nothing can be signed: a new CA", with(good, KeyCAKey, nil), now, nil, NewCA},
		"CAKeyForeign":    {"a CA key of another CA cannot sign for this one", with(good, KeyCAKey, other[KeyCAKey]), now, nil, NewCA},
		"LeafAsCA":        {"ca.crt must be a CA", with(with(good, KeyCA, good[KeyCert]), KeyCAKey, good[KeyKey]), now, nil, NewCA},
		"CertGarbage":     {"a certificate that does not parse is renewed", with(good, KeyCert, []byte("junk")), now, nil, RenewCert},
		"KeyMismatch":     {"a key of another certificate is renewed", with(good, KeyKey, other[KeyKey]), now, nil, RenewCert},
		"SignedElsewhere": {"a certificate another CA signed is renewed", with(with(good, KeyCert, other[KeyCert]), KeyKey, other[KeyKey]), now, nil, RenewCert},
		"NewHost":         {"a host the certificate does not name (another clusterDomain) renews it", good, now, []string{"glance-hooks.ns.svc.example.org"}, RenewCert},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := policy
			p.Hosts = append(append([]string{}, p.Hosts...), tc.hosts...)
			got := Plan(tc.data, p, tc.at)
			if got.Action != tc.want {
				t.Errorf("%s\nPlan: got %s (%s), want %s", tc.reason, got.Action, got.Why, tc.want)
			}
			if got.Why == "" {
				t.Errorf("%s: a decision without a reason", tc.reason)
			}
		})
	}
}

// What Apply makes is what Plan then keeps, and a renewal keeps the CA.
func TestApplyThenKeep(t *testing.T) {
	data := with(fresh(t, policy, now), "other", []byte("x"))
	if d := Plan(data, policy, now); d.Action != Keep {
		t.Fatalf("a fresh Secret is not kept: %s", d.Why)
	}
	later := now.Add(340 * 24 * time.Hour)
	d := Plan(data, policy, later)
	renewed, err := Apply(d, data, policy, later)
	if err != nil {
		t.Fatal(err)
	}
	if string(renewed[KeyCA]) != string(data[KeyCA]) || string(renewed[KeyCAKey]) != string(data[KeyCAKey]) {
		t.Error("renewing the certificate changed the CA")
	}
	if string(renewed[KeyCert]) == string(data[KeyCert]) {
		t.Error("the certificate was not renewed")
	}
	if string(renewed["other"]) != "x" {
		t.Error("a key Apply does not own was dropped")
	}
	if d := Plan(renewed, policy, later); d.Action != Keep {
		t.Errorf("the renewed Secret is not kept: %s", d.Why)
	}
	cert := parse(t, renewed[KeyCert])
	if got := cert.NotAfter.Sub(later); got != policy.CertValidity {
		t.Errorf("the renewed certificate lives %s, want %s", got, policy.CertValidity)
	}
	if cert.IsCA || len(cert.ExtKeyUsage) != 1 || cert.ExtKeyUsage[0] != x509.ExtKeyUsageServerAuth {
		t.Error("the serving certificate is not a server-auth leaf")
	}
}

// A certificate never outlives its CA.
func TestCertEndsWithCA(t *testing.T) {
	p := policy
	p.CAValidity = p.CertValidity + time.Hour
	data := fresh(t, p, now)
	later := now.Add(2 * time.Hour)
	renewed, err := Apply(Decision{Action: RenewCert}, data, p, later)
	if err != nil {
		t.Fatal(err)
	}
	if ca, cert := parse(t, renewed[KeyCA]), parse(t, renewed[KeyCert]); cert.NotAfter.After(ca.NotAfter) {
		t.Errorf("certificate until %s, CA until %s", cert.NotAfter, ca.NotAfter)
	}
}

func TestPolicyCheck(t *testing.T) {
	cases := map[string]struct {
		reason string
		mutate func(*Policy)
		want   string
	}{
		"Good":       {"the chart's defaults", func(*Policy) {}, ""},
		"NoHosts":    {"a certificate for nothing", func(p *Policy) { p.Hosts = nil }, "host"},
		"RenewFirst": {"renewing before it is even made", func(p *Policy) { p.RenewBefore = p.CertValidity }, "valid longer"},
		"ShortCA":    {"a CA that dies before its certificates", func(p *Policy) { p.CAValidity = p.CertValidity / 2 }, "outlive"},
		"Zero":       {"no lifetime", func(p *Policy) { p.CertValidity = 0 }, "positive"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := policy
			tc.mutate(&p)
			err := p.Check()
			if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("%s: Check() = %v, want an error with %q", tc.reason, err, tc.want)
			}
		})
	}
}

func TestNewToken(t *testing.T) {
	a, err := NewToken()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewToken()
	if len(a) != tokenLen || a == b || !TokenUsable([]byte(a)) {
		t.Errorf("tokens %q and %q: want two different ones of %d characters", a, b, tokenLen)
	}
	if strings.Trim(a, alphabet) != "" {
		t.Errorf("token %q has characters outside [A-Za-z0-9]", a)
	}
	if TokenUsable([]byte("short")) {
		t.Error("a 5-character token is usable")
	}
}

func parse(t *testing.T, p []byte) *x509.Certificate {
	t.Helper()
	b, _ := pem.Decode(p)
	if b == nil {
		t.Fatal("not PEM")
	}
	c, err := x509.ParseCertificate(b.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
