package keystone

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	reg "github.com/c5c3/glance-hooks/hooks/contract/registration"
	"github.com/c5c3/glance-hooks/test/proc"
	"github.com/c5c3/glance-hooks/test/services"
	"github.com/c5c3/glance-hooks/test/testbin"
)

const owner = "openstack/controlplane"

// run is one run of the binary: its exit code and output.
type run struct {
	code           int
	stdout, stderr string
}

// cli runs glance-hooks with only the environment given (PATH aside).
func cli(t *testing.T, env []string, args ...string) run {
	t.Helper()
	bin, err := testbin.Path()
	require.NoError(t, err)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir, cmd.Env = dir, proc.CleanEnv(dir, env...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	r := run{code: cmd.ProcessState.ExitCode(), stdout: stdout.String(), stderr: stderr.String()}
	t.Logf("glance-hooks %s: exit %d\n%s%s", strings.Join(args[:2], " "), r.code, r.stdout, r.stderr)
	return r
}

func deregistration() reg.Spec {
	s := spec("")
	s.Deregister = true
	return s
}

// adminEnv is the admin exports of the Keystone's bootstrapped admin.
func adminEnv(ks *services.Keystone) []string {
	return []string{
		reg.EnvAuthURL + "=" + ks.URL, reg.EnvUsername + "=" + ks.Admin.User, reg.EnvPassword + "=" + ks.Admin.Password,
		reg.EnvProjectName + "=" + ks.Admin.Project, reg.EnvUserDomainName + "=Default", reg.EnvProjectDomainID + "=default",
	}
}

func spec(region string) reg.Spec {
	return reg.Spec{Owner: owner, User: "glance", UserDomain: "Default", Project: "service", ProjectDomain: "Default", Role: "service",
		ServiceName: "glance", ServiceType: "image", Region: region,
		PublicURL: "http://controlplane-glance.openstack.svc.cluster.local:9292", InternalURL: "http://controlplane-glance.openstack.svc.cluster.local:9292",
		PasswordSecret: "glance-service-user"}
}

// register runs `keystone register` as the Job's container would.
func register(t *testing.T, ks *services.Keystone, s reg.Spec, password string, admin ...string) run {
	t.Helper()
	if admin == nil {
		admin = adminEnv(ks)
	}
	return cli(t, append(admin, reg.EnvServiceUserPassword+"="+password), s.Args()...)
}

// catalog is what Keystone holds that registration touches, as its API
// lists it (the admin's GETs, not the openstack CLI: seven CLI starts per
// listing would take most of a minute here): it must not change on a run
// that changes nothing.
func catalog(t *testing.T, ks *services.Keystone) string {
	t.Helper()
	var parts []string
	for _, path := range []string{"/users", "/projects", "/roles", "/role_assignments", "/services", "/endpoints", "/regions"} {
		req, err := http.NewRequest(http.MethodGet, ks.URL+path, nil)
		require.NoError(t, err)
		req.Header.Set("X-Auth-Token", ks.AdminToken(t))
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode, "GET %s: %s", path, body)
		parts = append(parts, path+" "+string(body))
	}
	return strings.Join(parts, "\n")
}

// imageEndpoints reads `openstack catalog list` and returns the image
// service's endpoints as "<interface> <url>" lines, sorted.
func imageEndpoints(t *testing.T, ks *services.Keystone, region string) []string {
	t.Helper()
	var list []struct {
		Name      string `json:"Name"`
		Type      string `json:"Type"`
		Endpoints any    `json:"Endpoints"`
	}
	require.NoError(t, json.Unmarshal([]byte(ks.OpenStack(t, ks.Admin, "catalog", "list", "-f", "json")), &list))
	var out []string
	for _, s := range list {
		if s.Type != "image" {
			continue
		}
		require.Equal(t, "glance", s.Name)
		// openstackclient 6.0 prints the endpoints of a service as a list of
		// {region, interface, url} objects in JSON.
		eps, _ := s.Endpoints.([]any)
		for _, e := range eps {
			m, _ := e.(map[string]any)
			require.Equal(t, region, m["region"], "endpoint region")
			out = append(out, fmt.Sprintf("%s %s", m["interface"], m["url"]))
		}
	}
	sort.Strings(out)
	return out
}

// tokenWorks issues a token as c and has Keystone validate it, as
// keystonemiddleware would, after the second in which any password changed:
// Keystone revokes a user's tokens at one-second granularity.
func tokenWorks(t *testing.T, ks *services.Keystone, c services.Credentials) services.TokenInfo {
	t.Helper()
	time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(1100 * time.Millisecond)))
	return ks.Validate(t, ks.Token(t, c))
}

// noSecret fails when any secret shows in any text.
func noSecret(t *testing.T, texts []string, secrets ...string) {
	t.Helper()
	for _, text := range texts {
		for _, s := range secrets {
			assert.NotContains(t, text, s, "a secret reached the output")
		}
	}
}

func TestRegistrationOnARealKeystone(t *testing.T) {
	db := services.StartMariaDB(t)
	ks := services.StartKeystone(t, db)
	password := services.RandomSecret()
	want := []string{"internal http://controlplane-glance.openstack.svc.cluster.local:9292", "public http://controlplane-glance.openstack.svc.cluster.local:9292"}
	var outputs []string
	keep := func(r run) run { outputs = append(outputs, r.stdout, r.stderr); return r }
	t.Cleanup(func() { noSecret(t, outputs, password, ks.Admin.Password) })

	// First run: everything is created.
	first := keep(register(t, ks, spec("RegionOne"), password))
	require.Equal(t, 0, first.code, "stdout:\n%s\nstderr:\n%s", first.stdout, first.stderr)
	for _, line := range []string{`created role "service"`, `created project "service"`, `created user "glance" in domain "Default"`,
		`granted role "service" to user "glance" on project "service"`, `created service "glance" of type "image"`,
		`created the public endpoint`, `created the internal endpoint`, "registered: "} {
		assert.Contains(t, first.stdout, line)
	}
	assert.Equal(t, want, imageEndpoints(t, ks, "RegionOne"), "openstack catalog list")
	assignments := ks.OpenStack(t, ks.Admin, "role", "assignment", "list", "--user", "glance", "--project", "service", "--names", "-f", "value", "-c", "Role")
	assert.Equal(t, "service", strings.TrimSpace(assignments), "the user's roles on project service")
	glance := services.Credentials{User: "glance", Password: password, Project: "service"}
	info := tokenWorks(t, ks, glance)
	assert.Equal(t, "glance", info.User)
	assert.Contains(t, info.Roles, "service")
	assert.Contains(t, info.Catalog, "image public http://controlplane-glance.openstack.svc.cluster.local:9292")
	assert.Contains(t, info.Catalog, "image internal http://controlplane-glance.openstack.svc.cluster.local:9292")
	shown := ks.OpenStack(t, ks.Admin, "user", "show", "glance", "-f", "json")
	assert.Contains(t, shown, `"glance_hooks_owner": "openstack/controlplane"`, "the user carries its owner")

	// Second run: nothing changes in Keystone.
	before := catalog(t, ks)
	second := keep(register(t, ks, spec("RegionOne"), password))
	require.Equal(t, 0, second.code, second.stderr)
	assert.Contains(t, second.stdout, "Keystone already matched: nothing changed")
	assert.Equal(t, before, catalog(t, ks), "a second run changed Keystone")

	// Rotation: the Secret's new password reaches Keystone; the old one stops working.
	rotated := services.RandomSecret()
	t.Cleanup(func() { noSecret(t, outputs, rotated) })
	third := keep(register(t, ks, spec("RegionOne"), rotated))
	require.Equal(t, 0, third.code, third.stderr)
	assert.Contains(t, third.stdout, `set the password of user "glance" from Secret "glance-service-user"`)
	code, _, err := ks.IssueToken(glance)
	require.NoError(t, err)
	assert.Equal(t, http.StatusUnauthorized, code, "the old password still works")
	glance.Password = rotated
	assert.Contains(t, tokenWorks(t, ks, glance).Roles, "service")

	// Another region: the endpoints move, the old ones (this owner's) go.
	moved := keep(register(t, ks, spec("RegionTwo"), rotated))
	require.Equal(t, 0, moved.code, moved.stderr)
	assert.Contains(t, moved.stdout, `created region "RegionTwo"`)
	assert.Contains(t, moved.stdout, `removed the public endpoint of service "glance" in region "RegionOne", no longer wanted`)
	assert.Equal(t, want, imageEndpoints(t, ks, "RegionTwo"))

	// Deregistration removes what the owner created and keeps the rest: an
	// endpoint made by hand keeps the service, and the user stays.
	svcID := strings.TrimSpace(ks.OpenStack(t, ks.Admin, "service", "show", "glance", "-f", "value", "-c", "id"))
	ks.Endpoint(t, svcID, "admin", "http://glance-admin.example:9292")
	dereg := keep(cli(t, adminEnv(ks), deregistration().Args()...))
	require.Equal(t, 0, dereg.code, dereg.stderr)
	assert.Contains(t, dereg.stdout, `removed the public endpoint of service "glance" in region "RegionTwo"`)
	assert.Contains(t, dereg.stdout, `kept service "glance": 1 endpoints of others are on it`)
	endpoints := ks.OpenStack(t, ks.Admin, "endpoint", "list", "--service", "image", "-f", "value", "-c", "Interface")
	assert.Equal(t, "admin", strings.TrimSpace(endpoints), "only the hand-made endpoint is left")
	adminEndpoint := strings.TrimSpace(ks.OpenStack(t, ks.Admin, "endpoint", "list", "--service", "image", "-f", "value", "-c", "ID"))
	ks.OpenStack(t, ks.Admin, "endpoint", "delete", adminEndpoint)
	dereg = keep(cli(t, adminEnv(ks), deregistration().Args()...))
	require.Equal(t, 0, dereg.code, dereg.stderr)
	assert.Contains(t, dereg.stdout, `removed service "glance" of type "image"`)
	assert.Empty(t, imageEndpoints(t, ks, "RegionTwo"), "openstack catalog list still shows the image service")
	assert.Contains(t, tokenWorks(t, ks, glance).Roles, "service", "the user was kept")
	again := keep(cli(t, adminEnv(ks), deregistration().Args()...))
	require.Equal(t, 0, again.code, again.stderr)
	assert.Contains(t, again.stdout, "Keystone already matched: nothing changed")
}

func TestRegistrationFailuresSayWhyAndChangeNothing(t *testing.T) {
	db := services.StartMariaDB(t)
	ks := services.StartKeystone(t, db)
	password := services.RandomSecret()
	var outputs []string
	keep := func(r run) run { outputs = append(outputs, r.stdout, r.stderr); return r }
	wrongAdmin := services.RandomSecret()
	t.Cleanup(func() { noSecret(t, outputs, password, ks.Admin.Password, wrongAdmin) })
	before := catalog(t, ks)

	// Bad admin credentials: refused at once (exit 3), nothing changed.
	bad := adminEnv(ks)
	for i, kv := range bad {
		if strings.HasPrefix(kv, reg.EnvPassword+"=") {
			bad[i] = reg.EnvPassword + "=" + wrongAdmin
		}
	}
	r := keep(register(t, ks, spec("RegionOne"), password, bad...))
	assert.Equal(t, reg.ExitRefused, r.code, r.stderr)
	assert.Contains(t, lastLine(r.stderr), `authenticating as "admin" (project "admin") at `+ks.URL+": Keystone answered HTTP 401")
	assert.Contains(t, lastLine(r.stderr), "Keystone refused the admin credentials (check OS_USERNAME, OS_PASSWORD, OS_PROJECT_NAME and the domains)")

	// Keystone unreachable: a failure worth retrying (exit 1).
	closed := fmt.Sprintf("http://127.0.0.1:%d/v3", proc.FreePort(t))
	unreachable := adminEnv(ks)
	unreachable[0] = reg.EnvAuthURL + "=" + closed
	r = keep(register(t, ks, spec("RegionOne"), password, unreachable...))
	assert.Equal(t, 1, r.code, r.stderr)
	assert.Contains(t, lastLine(r.stderr), "at "+closed+": ")
	assert.Contains(t, lastLine(r.stderr), "connection refused")

	// Missing admin keys: named, refused.
	r = keep(register(t, ks, spec("RegionOne"), password, adminEnv(ks)[:2]...))
	assert.Equal(t, reg.ExitRefused, r.code, r.stderr)
	assert.Contains(t, lastLine(r.stderr), "the admin credentials lack OS_PASSWORD, OS_PROJECT_NAME")
	assert.Equal(t, before, catalog(t, ks), "a failed run changed Keystone")

	// A user made by hand whose password the Secret does not hold: refused,
	// its password untouched.
	handPassword := services.RandomSecret()
	t.Cleanup(func() { noSecret(t, outputs, handPassword) })
	hand := ks.ServiceUser(t, "glance", handPassword)
	made := catalog(t, ks)
	r = keep(register(t, ks, spec("RegionOne"), password))
	assert.Equal(t, reg.ExitRefused, r.code, r.stderr)
	assert.Contains(t, lastLine(r.stderr), `user "glance" exists in domain "Default", made by hand or by another tool, and the password in Secret "glance-service-user" does not authenticate it`)
	assert.Equal(t, made, catalog(t, ks), "the refused run changed Keystone")
	assert.Equal(t, "glance", tokenWorks(t, ks, hand).User, "the hand-made user's password was changed")

	// With the user's own password in the Secret, the user is taken over.
	r = keep(register(t, ks, spec("RegionOne"), handPassword))
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, `took over user "glance": the password in Secret "glance-service-user" authenticates it`)
	assert.Contains(t, ks.OpenStack(t, ks.Admin, "user", "show", "glance", "-f", "json"), `"glance_hooks_owner": "openstack/controlplane"`)
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
