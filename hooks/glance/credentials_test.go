package glance

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/types"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
	"github.com/c5c3/glance-hooks/hooks/glance/render"
)

func TestConnectionURL(t *testing.T) {
	type args struct {
		user, password, host string
		port                 int32
	}
	cases := map[string]struct {
		reason string
		args   args
		want   string
	}{
		"Plain": {"a cluster's Service and the default port",
			args{"glance", "secret", "openstack-db.openstack.svc", 3306},
			"mysql+pymysql://glance:secret@openstack-db.openstack.svc:3306/glance?charset=utf8"},
		"URLCharacters": {"@ : / % in a password are percent-encoded; SQLAlchemy decodes them",
			args{"glance", "p@ss:w/rd%", "db", 3306},
			"mysql+pymysql://glance:p%40ss%3Aw%2Frd%25@db:3306/glance?charset=utf8"},
		"Interpolation": {"'$' is encoded too, so oslo.config never reads an interpolation in the URL",
			args{"gl$ance", "$host", "db", 3306},
			"mysql+pymysql://gl%24ance:%24host@db:3306/glance?charset=utf8"},
		"IPv6": {"an IPv6 address is bracketed", args{"glance", "s", "fd00::1", 3307},
			"mysql+pymysql://glance:s@[fd00::1]:3307/glance?charset=utf8"},
		"Unicode": {"every byte that is not unreserved is encoded", args{"glance", "pässwort ", "db", 3306},
			"mysql+pymysql://glance:p%C3%A4sswort%20@db:3306/glance?charset=utf8"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := connectionURL(tc.args.user, tc.args.password, tc.args.host, tc.args.port, "glance")
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nconnectionURL(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestCredentialsDigest(t *testing.T) {
	const url, password = "mysql+pymysql://glance:a@db:3306/glance?charset=utf8", "service"
	base := credentialsDigest("uid-db", "uid-user", url, password)
	cases := map[string]struct {
		reason string
		digest string
		same   bool
	}{
		"Deterministic":     {"the same Secrets give the same digest", credentialsDigest("uid-db", "uid-user", url, password), true},
		"DatabasePassword":  {"a new database password changes it", credentialsDigest("uid-db", "uid-user", strings.Replace(url, ":a@", ":b@", 1), password), false},
		"ServicePassword":   {"a new service password changes it", credentialsDigest("uid-db", "uid-user", url, "service2"), false},
		"RecreatedSecret":   {"a Secret made anew (another uid) changes it", credentialsDigest("uid-db2", "uid-user", url, password), false},
		"FramedNotGlued":    {"moving bytes between the URL and the password changes it", credentialsDigest("uid-db", "uid-user", url+"s", "ervice"), false},
		"KeyedNotPlainHash": {"without the uids (what a Deployment reader knows) the digest is another", credentialsDigest("", "", url, password), false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if (tc.digest == base) != tc.same {
				t.Errorf("%s: digest %s, base %s", tc.reason, tc.digest, base)
			}
			if len(tc.digest) != 32 {
				t.Errorf("%s: digest %q is not 32 hex digits", tc.reason, tc.digest)
			}
		})
	}
}

// related builds the related Secrets a sync request carries.
func related(t *testing.T, secrets map[string]map[string]string) metacontroller.ObjectMap {
	t.Helper()
	objs := map[string]json.RawMessage{}
	for name, data := range secrets {
		enc := map[string]string{}
		for k, v := range data {
			enc[k] = base64.StdEncoding.EncodeToString([]byte(v))
		}
		raw, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "Secret",
			"metadata": map[string]any{"name": name, "uid": "uid-" + name}, "data": enc})
		if err != nil {
			t.Fatal(err)
		}
		objs[name] = raw
	}
	return metacontroller.ObjectMap{names.SecretsKey: objs}
}

func TestReadCredentials(t *testing.T) {
	g := &api.Glance{}
	g.Name, g.Namespace = "glance", "openstack"
	spec := testSpec()
	db := map[string]string{"username": "glance", "password": "p@ss"}
	user := map[string]string{"password": "service"}
	type want struct {
		ready       bool
		dbProblem   string
		userReady   bool
		userMessage string
	}
	cases := map[string]struct {
		reason  string
		secrets map[string]map[string]string
		// key is database.secretRef.key; empty leaves the default.
		key  string
		want want
	}{
		"Complete": {"both Secrets carry their keys",
			map[string]map[string]string{"glance-db": db, "glance-service-user": user}, "",
			want{ready: true, userReady: true, userMessage: `Secret "glance-service-user" carries "password"`}},
		"PasswordKey": {"the password is read under the key database.secretRef.key names, not under password",
			map[string]map[string]string{"glance-db": {"username": "glance", "db-password": "p@ss", "password": "not this"}, "glance-service-user": user},
			"db-password", want{ready: true, userReady: true, userMessage: `Secret "glance-service-user" carries "password"`}},
		"NoPasswordUnderKey": {"a Secret without the named key waits, naming that key",
			map[string]map[string]string{"glance-db": db, "glance-service-user": user}, "db-password",
			want{dbProblem: `Secret "glance-db" has no key "db-password": the database URL cannot be built, nothing is re-rendered and no schema Job starts`,
				userReady: true, userMessage: `Secret "glance-service-user" carries "password"`}},
		"NoDatabaseSecret": {"a missing Secret is named",
			map[string]map[string]string{"glance-service-user": user}, "",
			want{dbProblem: `Secret "glance-db" does not exist: the database URL cannot be built, nothing is re-rendered and no schema Job starts`,
				userReady: true, userMessage: `Secret "glance-service-user" carries "password"`}},
		"NoPassword": {"a missing key is named, with the Secret, never a value",
			map[string]map[string]string{"glance-db": {"username": "glance"}, "glance-service-user": user}, "",
			want{dbProblem: `Secret "glance-db" has no key "password": the database URL cannot be built, nothing is re-rendered and no schema Job starts`,
				userReady: true, userMessage: `Secret "glance-service-user" carries "password"`}},
		"EmptyUsername": {"an empty value is as good as none",
			map[string]map[string]string{"glance-db": {"username": "", "password": "p"}, "glance-service-user": user}, "",
			want{dbProblem: `Secret "glance-db" key "username" is empty: the database URL cannot be built, nothing is re-rendered and no schema Job starts`,
				userReady: true, userMessage: `Secret "glance-service-user" carries "password"`}},
		"NoServiceUser": {"the service user's Secret is its own condition",
			map[string]map[string]string{"glance-db": db}, "",
			want{userMessage: `Secret "glance-service-user" does not exist: glance-api cannot authenticate tokens without the service user's password, nothing is re-rendered`}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			spec := spec
			if tc.key != "" {
				database := *spec.Database
				database.SecretRef.Key = tc.key
				spec.Database = &database
			}
			creds, dbCond, userCond, err := readCredentials(g, spec, related(t, tc.secrets))
			if err != nil {
				t.Fatalf("%s: %v", tc.reason, err)
			}
			got := want{ready: creds != nil, userReady: userCond.Status, userMessage: userCond.Message}
			if dbCond != nil {
				got.dbProblem = dbCond.Message
				if dbCond.Reason != model.ReasonWaitingForDBCredentials {
					t.Errorf("%s: reason %s", tc.reason, dbCond.Reason)
				}
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nreadCredentials(...): -want, +got:\n%s", tc.reason, diff)
			}
			if creds != nil {
				if want := "mysql+pymysql://glance:p%40ss@openstack-db.openstack.svc:3306/glance?charset=utf8"; creds.Connection != want {
					t.Errorf("%s: connection %q, want %q", tc.reason, creds.Connection, want)
				}
				if want := credentialsDigest(types.UID("uid-glance-db"), types.UID("uid-glance-service-user"), creds.Connection, "service"); creds.Digest != want {
					t.Errorf("%s: digest %s is not keyed by the two Secrets' uids (want %s)", tc.reason, creds.Digest, want)
				}
			}
		})
	}
}

func TestEnvironmentValuesEscapedForOsloConfig(t *testing.T) {
	g := &api.Glance{}
	g.Name, g.Namespace = "glance", "openstack"
	creds, _, _, err := readCredentials(g, testSpec(), related(t, map[string]map[string]string{
		"glance-db":           {"username": "gl$ance", "password": "$host"},
		"glance-service-user": {"password": "se$host$$cr%et"},
	}))
	if err != nil || creds == nil {
		t.Fatalf("readCredentials: %v, %v", creds, err)
	}
	if want := "se$$host$$$$cr%et"; creds.ServicePassword != want {
		t.Errorf("the service password reaches OS_KEYSTONE_AUTHTOKEN__PASSWORD as %q, want %q: oslo.config reads \"$$\" as '$'", creds.ServicePassword, want)
	}
	if strings.Contains(creds.Connection, "$") {
		t.Errorf("the database URL %q holds a '$' oslo.config would interpolate", creds.Connection)
	}
	unescaped := connectionURL("gl$ance", "$host", "openstack-db.openstack.svc", 3306, "glance")
	if want := credentialsDigest("uid-glance-db", "uid-glance-service-user", unescaped, "se$host$$cr%et"); creds.Digest != want {
		t.Errorf("the digest is over the values, not their escaped form: %s, want %s", creds.Digest, want)
	}
}

func TestDatabaseConf(t *testing.T) {
	part, err := databaseConf(render.ConfInput{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range part.Sections {
		for _, o := range s.Options {
			got["["+s.Name+"] "+o.Key] = o.Value
		}
	}
	want := map[string]string{
		// glance-api and the schema Jobs wait for a database that is not up yet.
		"[database] max_retries": "-1",
		// The reference's value: a connection a proxy dropped idle is replaced first.
		"[database] connection_recycle_time": "600",
		// No max_pool_size, max_overflow or pool_timeout: the pool stays
		// oslo.db's, as docs/stopping.md ("The database pool") says why.
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("the [database] options the hooks render (-want +got):\n%s", d)
	}
}
