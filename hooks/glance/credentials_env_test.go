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
