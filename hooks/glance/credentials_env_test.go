package glance

import (
	"strings"
	"testing"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
)

// A credential the pods read from their environment cannot hold a NUL: the
// condition names the Secret and the key, no value, and nothing renders.
func TestCredentialWithNULIsRefused(t *testing.T) {
	g := &api.Glance{}
	g.Name, g.Namespace = "glance", "openstack"
	db := map[string]string{"username": "glance", "password": "p@ss"}
	creds, dbCond, userCond, err := readCredentials(g, testSpec(), related(t, map[string]map[string]string{
		"glance-db": db, "glance-service-user": {"password": "serv\x00ice"},
	}))
	if err != nil {
		t.Fatal(err)
	}
	if creds != nil || userCond.Status {
		t.Fatalf("a NUL service password was accepted: ServiceUserReady=%t", userCond.Status)
	}
	want := `Secret "glance-service-user" key "password" contains a NUL byte, which no environment variable can carry`
	if !strings.HasPrefix(userCond.Message, want) {
		t.Errorf("ServiceUserReady message %q, want it to start with %q", userCond.Message, want)
	}
	if dbCond != nil {
		t.Errorf("the database Secret is complete, yet: %s", dbCond.Message)
	}

	_, dbCond, _, err = readCredentials(g, testSpec(), related(t, map[string]map[string]string{
		"glance-db": {"username": "glance", "password": "p\x00ss"}, "glance-service-user": {"password": "service"},
	}))
	if err != nil {
		t.Fatal(err)
	}
	if dbCond == nil || !strings.HasPrefix(dbCond.Message, `Secret "glance-db" key "password" contains a NUL byte`) {
		t.Errorf("a NUL database password is named in DatabaseReady, got %+v", dbCond)
	}
}

// Every other character no rendered file may carry is refused in a
// password too, in the service user's and the database's: the condition
// names the Secret and the key, never the value, and nothing renders.
func TestCredentialWithControlCharacterIsRefused(t *testing.T) {
	g := &api.Glance{}
	g.Name, g.Namespace = "glance", "openstack"
	cases := map[string]struct {
		reason, password, want string
	}{
		"SOH":          {"a C0 control character", "s3cr3t\x01v4lue", "contains the control character U+0001"},
		"newline":      {"it would end the line of glance-authtoken", "s3cr3t\nv4lue", "contains a newline"},
		"return":       {"a carriage return", "s3cr3t\rv4lue", "contains a carriage return"},
		"tab":          {"a tab", "s3cr3t\tv4lue", "contains a tab"},
		"ESC":          {"a terminal escape", "s3cr3t\x1b[2Jv4lue", "contains the control character U+001B"},
		"DEL":          {"DEL", "s3cr3t\x7fv4lue", "contains the control character U+007F"},
		"NEL":          {"a C1 control character", "s3cr3t\u0085v4lue", "contains the control character U+0085"},
		"LS":           {"the line separator", "s3cr3t\u2028v4lue", "contains the control character U+2028"},
		"invalid UTF8": {"bytes that are no text", "s3cr3t\xffv4lue", "is not valid UTF-8"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, _, user, err := readCredentials(g, testSpec(), related(t, map[string]map[string]string{
				"glance-db": {"username": "glance", "password": "p@ss"}, "glance-service-user": {"password": c.password},
			}))
			if err != nil {
				t.Fatal(err)
			}
			want := `Secret "glance-service-user" key "password" ` + c.want
			if user.Status || !strings.HasPrefix(user.Message, want) || strings.Contains(user.Message, "s3cr3t") || strings.Contains(user.Message, "v4lue") {
				t.Errorf("%s: ServiceUserReady %t %q, want False starting %q", c.reason, user.Status, user.Message, want)
			}
			creds, db, _, err := readCredentials(g, testSpec(), related(t, map[string]map[string]string{
				"glance-db": {"username": "glance", "password": c.password}, "glance-service-user": {"password": "service"},
			}))
			if err != nil {
				t.Fatal(err)
			}
			if creds != nil || db == nil || !strings.HasPrefix(db.Message, `Secret "glance-db" key "password" `+c.want) {
				t.Errorf("%s: the database password is not refused by name: %+v", c.reason, db)
			}
		})
	}
}
