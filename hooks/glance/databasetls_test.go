package glance

import (
	"encoding/json"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/glance/decide"
	"github.com/c5c3/glance-hooks/hooks/glance/observe"
	"github.com/c5c3/glance-hooks/hooks/glance/render"
	"github.com/c5c3/glance-hooks/test/testcert"
)

// tlsSpec is testSpec with database TLS in a mode.
func tlsSpec(mode string) api.GlanceSpec {
	spec := testSpec()
	db := *spec.Database
	db.TLS = &api.DatabaseTLSSpec{Mode: mode, CABundleSecretRef: api.SecretKeyRef{Name: "db-ca"}, ClientCertSecretRef: api.SecretKeyRef{Name: "db-client"}}
	spec.Database = &db
	return spec
}

func TestDatabaseTLSQueryPerMode(t *testing.T) {
	const (
		ca     = "&ssl_ca=/etc/glance/database-tls/ca.crt"
		client = "&ssl_cert=/etc/glance/database-tls/tls.crt&ssl_key=/etc/glance/database-tls/tls.key"
	)
	cases := map[string]struct{ reason, want string }{
		api.DBTLSDisabled:   {"disabled adds nothing: the connection is in the clear", ""},
		api.DBTLSPrefer:     {"prefer speaks TLS (the client certificate asks for it) and verifies nothing", client},
		api.DBTLSRequire:    {"require is prefer on the client side; the server's REQUIRE SSL enforces it", client},
		api.DBTLSVerifyCA:   {"verify-ca checks the chain, not the host name", ca + client + "&ssl_check_hostname=false"},
		api.DBTLSVerifyFull: {"verify-full checks the chain and the host name", ca + client + "&ssl_check_hostname=true"},
		"":                  {"no mode is verify-full", ca + client + "&ssl_check_hostname=true"},
	}
	for mode, tc := range cases {
		t.Run("mode="+mode, func(t *testing.T) {
			if got := databaseTLSQuery(activeDatabaseTLS(tlsSpec(mode))); got != tc.want {
				t.Errorf("%s\ngot  %q\nwant %q", tc.reason, got, tc.want)
			}
		})
	}
	if got := databaseTLSQuery(activeDatabaseTLS(testSpec())); got != "" {
		t.Errorf("without database.tls the URL has no TLS parameter, got %q", got)
	}
}

// tlsSecrets are a valid CA bundle and client certificate, and a second
// client certificate whose key belongs to no other.
func tlsSecrets(t *testing.T) (ca, client, other testcert.Pair) {
	t.Helper()
	c, err := testcert.NewCA("db-ca")
	if err != nil {
		t.Fatal(err)
	}
	cl, err := testcert.NewClient("glance")
	if err != nil {
		t.Fatal(err)
	}
	o, err := testcert.NewClient("other")
	if err != nil {
		t.Fatal(err)
	}
	return c.Pair, cl, o
}

func TestReadCredentialsWithDatabaseTLS(t *testing.T) {
	g := &api.Glance{}
	g.Name, g.Namespace = "glance", "openstack"
	ca, client, other := tlsSecrets(t)
	good := map[string]map[string]string{
		"glance-db":           {"username": "glance", "password": "p"},
		"glance-service-user": {"password": "service"},
		"db-ca":               {"ca.crt": string(ca.CertPEM)},
		"db-client":           {"tls.crt": string(client.CertPEM), "tls.key": string(client.KeyPEM)},
	}
	with := func(name string, data map[string]string) map[string]map[string]string {
		out := map[string]map[string]string{}
		for k, v := range good {
			out[k] = v
		}
		if data == nil {
			delete(out, name)
		} else {
			out[name] = data
		}
		return out
	}
	const tail = ": the database URL cannot be built, nothing is re-rendered and no schema Job starts"
	cases := map[string]struct {
		reason  string
		secrets map[string]map[string]string
		problem string
	}{
		"Complete":     {"both TLS Secrets hold what PyMySQL loads (PEM has newlines: no environment check applies to files)", good, ""},
		"NoCASecret":   {"a missing CA Secret is named", with("db-ca", nil), `Secret "db-ca" does not exist` + tail},
		"WrongCAKey":   {"the CA key is named", with("db-ca", map[string]string{"bundle.pem": string(ca.CertPEM)}), `Secret "db-ca" has no key "ca.crt"` + tail},
		"CANotPEM":     {"a bundle without certificates is refused, its content unsaid", with("db-ca", map[string]string{"ca.crt": "not-a-cert-s3cr3t"}), `Secret "db-ca" key "ca.crt" holds no PEM certificate` + tail},
		"NoClient":     {"a missing client Secret is named once", with("db-client", nil), `Secret "db-client" does not exist` + tail},
		"NoKey":        {"the missing key of the pair is named", with("db-client", map[string]string{"tls.crt": string(client.CertPEM)}), `Secret "db-client" has no key "tls.key"` + tail},
		"KeyOfAnother": {"a key that is not the certificate's is refused", with("db-client", map[string]string{"tls.crt": string(client.CertPEM), "tls.key": string(other.KeyPEM)}), `Secret "db-client" keys tls.crt and tls.key are not a PEM certificate and its unencrypted private key` + tail},
		"BothProblems": {"every problem is said at once", func() map[string]map[string]string {
			s := with("db-ca", nil)
			s["db-client"] = map[string]string{"tls.crt": string(client.CertPEM)}
			return s
		}(), `Secret "db-ca" does not exist; Secret "db-client" has no key "tls.key"` + tail},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			creds, dbCond, _, err := readCredentials(g, tlsSpec(api.DBTLSVerifyFull), related(t, tc.secrets))
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if dbCond != nil {
				got = dbCond.Message
			}
			if got != tc.problem {
				t.Fatalf("%s\ngot  %q\nwant %q", tc.reason, got, tc.problem)
			}
			if tc.problem != "" {
				if creds != nil {
					t.Errorf("%s: credentials built despite the problem", tc.reason)
				}
				if strings.Contains(got, "BEGIN") || strings.Contains(got, "s3cr3t") {
					t.Errorf("%s: the message shows Secret content: %q", tc.reason, got)
				}
				return
			}
			if !strings.HasSuffix(creds.Connection, "?charset=utf8&ssl_ca=/etc/glance/database-tls/ca.crt&ssl_cert=/etc/glance/database-tls/tls.crt&ssl_key=/etc/glance/database-tls/tls.key&ssl_check_hostname=true") {
				t.Errorf("%s: the URL %q does not carry verify-full's parameters", tc.reason, creds.Connection)
			}
		})
	}
}

func TestDatabaseTLSChangeRollsThePods(t *testing.T) {
	g := &api.Glance{}
	g.Name, g.Namespace = "glance", "openstack"
	ca, client, other := tlsSecrets(t)
	secrets := func(caPEM []byte, pair testcert.Pair) map[string]map[string]string {
		return map[string]map[string]string{
			"glance-db": {"username": "glance", "password": "p"}, "glance-service-user": {"password": "service"},
			"db-ca":     {"ca.crt": string(caPEM)},
			"db-client": {"tls.crt": string(pair.CertPEM), "tls.key": string(pair.KeyPEM)},
		}
	}
	digest := func(spec api.GlanceSpec, s map[string]map[string]string) string {
		creds, cond, _, err := readCredentials(g, spec, related(t, s))
		if err != nil || creds == nil {
			t.Fatalf("readCredentials: %v %v", cond, err)
		}
		return creds.Digest
	}
	base := digest(tlsSpec(api.DBTLSVerifyFull), secrets(ca.CertPEM, client))
	for name, tc := range map[string]struct {
		reason string
		got    string
		same   bool
	}{
		"Same":        {"the same Secrets give the same digest", digest(tlsSpec(api.DBTLSVerifyFull), secrets(ca.CertPEM, client)), true},
		"NewBundle":   {"a new CA bundle rolls the pods", digest(tlsSpec(api.DBTLSVerifyFull), secrets(append(append([]byte{}, ca.CertPEM...), client.CertPEM...), client)), false},
		"NewCert":     {"a new client certificate rolls the pods", digest(tlsSpec(api.DBTLSVerifyFull), secrets(ca.CertPEM, other)), false},
		"OtherMode":   {"another mode (another URL) rolls the pods", digest(tlsSpec(api.DBTLSVerifyCA), secrets(ca.CertPEM, client)), false},
		"DisabledOff": {"disabled is the digest without TLS", digest(tlsSpec(api.DBTLSDisabled), secrets(ca.CertPEM, client)), false},
	} {
		if (tc.got == base) != tc.same {
			t.Errorf("%s: %s (digest %s, base %s)", name, tc.reason, tc.got, base)
		}
	}
	if digest(tlsSpec(api.DBTLSDisabled), secrets(ca.CertPEM, client)) != digest(testSpec(), secrets(ca.CertPEM, client)) {
		t.Error("mode disabled must render as no database.tls at all")
	}
}

// Every pod that connects to the database mounts the TLS files: glance-api,
// each schema Job container (init containers too) and the purge CronJob's.
func TestDatabaseTLSMountedInEveryDatabasePod(t *testing.T) {
	g := &api.Glance{}
	g.Name, g.Namespace = "glance", "openstack"
	in := render.PodInputs{Mounts: render.Mounts{ConfigMap: "c", BackendsSecret: "b"}, Digest: "d", EveryPod: everyPod}
	pods := func(spec api.GlanceSpec) map[string]corev1.PodSpec {
		spec.DBPurge = &api.DBPurgeSpec{}
		cj := dbPurgeChildren(g, spec, decide.RunTarget{Image: "i"}, in)[0].(*cronJobChild)
		return map[string]corev1.PodSpec{
			"Deployment": render.Deployment(g, spec, decide.RunTarget{Image: "i", Release: render.UWSGIFrom}, in, nil).Spec.Template.Spec,
			"SyncJob":    render.SchemaJobChild(g, spec, observe.SchemaJob{Action: observe.ActionSync, Image: "i"}, "j", in).Spec.Template.Spec,
			"CronJob":    cj.Spec.JobTemplate.Spec.Template.Spec,
		}
	}
	for name, pod := range pods(tlsSpec(api.DBTLSVerifyCA)) {
		t.Run(name, func(t *testing.T) {
			vol := findVolume(pod.Volumes, VolumeDatabaseTLS)
			if vol == nil || vol.Projected == nil || vol.Projected.DefaultMode == nil || *vol.Projected.DefaultMode != 0o440 {
				t.Fatalf("no read-only (0440) projected volume %s: %+v", VolumeDatabaseTLS, vol)
			}
			raw, _ := json.Marshal(vol.Projected.Sources)
			if want := `[{"secret":{"name":"db-ca","items":[{"key":"ca.crt","path":"ca.crt"}]}},{"secret":{"name":"db-client","items":[{"key":"tls.crt","path":"tls.crt"},{"key":"tls.key","path":"tls.key"}]}}]`; string(raw) != want {
				t.Errorf("sources %s\nwant    %s", raw, want)
			}
			for _, c := range append(append([]corev1.Container{}, pod.InitContainers...), pod.Containers...) {
				found := false
				for _, m := range c.VolumeMounts {
					if m.Name == VolumeDatabaseTLS {
						found = m.MountPath == DatabaseTLSDir && m.ReadOnly
					}
				}
				if !found {
					t.Errorf("container %s does not mount %s read-only at %s", c.Name, VolumeDatabaseTLS, DatabaseTLSDir)
				}
			}
		})
	}
	for name, pod := range pods(tlsSpec(api.DBTLSDisabled)) {
		if findVolume(pod.Volumes, VolumeDatabaseTLS) != nil {
			t.Errorf("%s: mode disabled mounts nothing", name)
		}
	}
}

func findVolume(vs []corev1.Volume, name string) *corev1.Volume {
	for i := range vs {
		if vs[i].Name == name {
			return &vs[i]
		}
	}
	return nil
}

func TestCustomizeAsksForTheTLSSecrets(t *testing.T) {
	for name, tc := range map[string]struct {
		spec api.GlanceSpec
		want string
	}{
		"VerifyFull": {tlsSpec(api.DBTLSVerifyFull), "db-ca,db-client,glance-db,glance-service-user"},
		"Disabled":   {tlsSpec(api.DBTLSDisabled), "glance-db,glance-service-user"},
		"None":       {testSpec(), "glance-db,glance-service-user"},
	} {
		if got := strings.Join(credentialSecrets(tc.spec), ","); got != tc.want {
			t.Errorf("%s: related Secrets %s, want %s", name, got, tc.want)
		}
	}
}
