package services

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/c5c3/glance-hooks/test/proc"
)

// Bounds of Keystone's steps. keystone-manage takes 2-4 s a command here,
// uWSGI about 4 s to load the application.
const (
	keystoneManageTimeout = 3 * time.Minute
	keystoneReadyTimeout  = 2 * time.Minute
	keystoneCallTimeout   = time.Minute
)

// Keystone is Debian's keystone served by uWSGI on a loopback port, its
// database on a MariaDB of the test, bootstrapped with an admin user and the
// identity endpoint registered for the public and internal interfaces
// (keystonemiddleware looks up the internal one).
type Keystone struct {
	// URL is the identity API, http://127.0.0.1:<port>/v3: what a Glance's
	// keystoneEndpoint names and what the catalog lists.
	URL string
	// Region is the catalog region of the bootstrapped endpoints.
	Region string
	// Admin is the bootstrapped admin (project admin, role admin).
	Admin Credentials

	dir    string
	conf   string
	proc   *proc.Process
	redact *proc.Redactor

	mu         sync.Mutex
	adminToken string
	tokenAt    time.Time
	// lastWrite is when the last call that changed Keystone returned; it
	// has its own lock because AdminToken issues a token holding mu.
	writeMu   sync.Mutex
	lastWrite time.Time
}

// Credentials name a user and the project to scope a token to. Empty
// domains are "Default".
type Credentials struct {
	User, Password, Project   string
	UserDomain, ProjectDomain string
}

// DefaultDomain is the domain keystone-manage bootstrap creates (id
// "default", name "Default").
const DefaultDomain = "Default"

func (c Credentials) domains() (user, project string) {
	user, project = c.UserDomain, c.ProjectDomain
	if user == "" {
		user = DefaultDomain
	}
	if project == "" {
		project = DefaultDomain
	}
	return user, project
}

// StartKeystone gives Keystone a database and user on db, writes its own
// keystone.conf (fernet tokens, key repositories in the test's directory; no
// file under /etc/keystone is read), runs keystone-manage db_sync,
// fernet_setup, credential_setup and bootstrap (admin password from the
// environment, not the command line; public and internal identity
// endpoints), then serves keystone-wsgi-public with uWSGI on 127.0.0.1 and a
// free port and waits until GET /v3 answers 200.
func StartKeystone(t testing.TB, db *MariaDB) *Keystone {
	t.Helper()
	manage := need(t, "keystone-manage", "keystone")
	wsgi := need(t, "keystone-wsgi-public", "keystone")
	uwsgi := need(t, "uwsgi", "uwsgi")
	if _, err := os.Stat("/usr/lib/uwsgi/plugins/python3_plugin.so"); err != nil {
		proc.Missing(t, "uWSGI's Python 3 plugin (Debian package uwsgi-plugin-python3)", "hack/install-services.sh installs it")
	}
	dir := t.TempDir()
	port := proc.FreePort(t)
	k := &Keystone{
		URL:    "http://127.0.0.1:" + strconv.Itoa(port) + "/v3",
		Region: "RegionOne",
		Admin:  Credentials{User: "admin", Password: RandomSecret(), Project: "admin"},
		dir:    dir,
		conf:   filepath.Join(dir, "keystone.conf"),
		redact: db.Redactor(),
	}
	k.redact.Add(k.Admin.Password)
	k.writeConf(t, db)
	k.setUp(t, manage)
	k.proc = proc.Start(t, proc.Options{
		Name: "keystone (uwsgi)",
		Argv: []string{uwsgi, "--plugin", "python3", "--http11-socket", proc.HostPort("127.0.0.1", port),
			"--wsgi-file", wsgi, "--master", "--processes", "2", "--threads", "4",
			"--lazy-apps", "--need-app", "--die-on-term", "--no-orphans", "--buffer-size", "65535"},
		Env:      proc.CleanEnv(dir, "OS_KEYSTONE_CONFIG_FILES="+k.conf),
		Log:      filepath.Join(dir, "keystone.log"),
		Redactor: k.redact,
	})
	if _, err := k.proc.WaitFor(keystoneReadyTimeout, "GET /v3 answering 200", proc.HTTPStatus(k.URL, func(c int) bool { return c == http.StatusOK })); err != nil {
		t.Fatal(err)
	}
	// GET /v3 answers before Keystone has loaded what a password
	// authentication needs; on a busy machine the first one took longer
	// than a client's 30 s call timeout (glance-hooks keystone's). Ready is
	// when it issues a token.
	if _, err := k.proc.WaitFor(keystoneReadyTimeout, "the admin's token issued", k.issuesTokens); err != nil {
		t.Fatal(err)
	}
	return k
}

// issuesTokens fails unless Keystone issues the admin a token.
func (k *Keystone) issuesTokens() error {
	code, _, err := k.IssueToken(k.Admin)
	if err != nil {
		return err
	}
	if code != http.StatusCreated {
		return fmt.Errorf("POST /v3/auth/tokens answered %d", code)
	}
	return nil
}

// writeConf gives Keystone its database and user on db, makes the key
// repositories and writes keystone.conf naming them.
func (k *Keystone) writeConf(t testing.TB, db *MariaDB) {
	t.Helper()
	fernet, credential := filepath.Join(k.dir, "fernet-keys"), filepath.Join(k.dir, "credential-keys")
	mkdirs(t, fernet, credential)
	// keystone-manage db_sync hands the URL to alembic's configparser, which
	// refuses a '%' (so any percent-encoded byte) in it: letters and digits.
	dbPassword := rand.Text()
	db.CreateDatabase(t, "keystone")
	db.CreateUser(t, "keystone", dbPassword, "keystone")
	conf := fmt.Sprintf(`[DEFAULT]
use_stderr = true

[database]
connection = %s

[token]
provider = fernet

[fernet_tokens]
key_repository = %s

[credential]
key_repository = %s
`, db.URL("keystone", dbPassword, "keystone"), fernet, credential)
	if err := os.WriteFile(k.conf, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
}

// setUp runs keystone-manage db_sync, fernet_setup and credential_setup,
// then bootstrap: the admin, and the identity endpoints of the public and
// internal interfaces.
func (k *Keystone) setUp(t testing.TB, manage string) {
	t.Helper()
	// The key repositories must belong to the user Keystone runs as.
	owner := []string{"--keystone-user", currentUser(t), "--keystone-group", currentGroup(t)}
	// The key repositories do not touch the database: set them up while
	// db_sync runs.
	errs := make(chan error, 3)
	go func() { errs <- k.manage(manage, "db_sync") }()
	go func() { errs <- k.manage(manage, append([]string{"fernet_setup"}, owner...)...) }()
	go func() { errs <- k.manage(manage, append([]string{"credential_setup"}, owner...)...) }()
	for range 3 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if err := k.manage(manage, "bootstrap", "--bootstrap-username", k.Admin.User, "--bootstrap-project-name", k.Admin.Project,
		"--bootstrap-role-name", "admin", "--bootstrap-region-id", k.Region,
		"--bootstrap-public-url", k.URL, "--bootstrap-internal-url", k.URL); err != nil {
		t.Fatal(err)
	}
}

// manage runs one keystone-manage command; the admin password reaches
// bootstrap through the environment, never the command line.
func (k *Keystone) manage(manage string, args ...string) error {
	out, err := proc.Run(keystoneManageTimeout, proc.Options{
		Name:     "keystone-manage " + args[0],
		Argv:     append([]string{manage, "--config-file", k.conf}, args...),
		Dir:      k.dir,
		Env:      proc.CleanEnv(k.dir, "OS_BOOTSTRAP_PASSWORD="+k.Admin.Password),
		Log:      filepath.Join(k.dir, "keystone-manage-"+args[0]+".log"),
		Redactor: k.redact,
	})
	if err != nil {
		return fmt.Errorf("%w\n%s", err, proc.LastLines(out, 30))
	}
	return nil
}

func currentUser(t testing.TB) string {
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	return u.Username
}

func currentGroup(t testing.TB) string {
	g, err := user.LookupGroupId(strconv.Itoa(os.Getegid()))
	if err != nil {
		t.Fatal(err)
	}
	return g.Name
}

// Redactor masks the passwords Keystone was given and the tokens it issued.
func (k *Keystone) Redactor() *proc.Redactor { return k.redact }

// Log is Keystone's log so far (secrets masked).
func (k *Keystone) Log() string { return k.proc.Log() }

var keystoneClient = &http.Client{Timeout: keystoneCallTimeout}

// call does one request against the identity API; path is below /v3.
func (k *Keystone) call(method, path, token string, body any) (int, http.Header, []byte, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, k.URL+path, rd)
	if err != nil {
		return 0, nil, nil, err
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("X-Auth-Token", token)
	}
	resp, err := keystoneClient.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b, err
}

// adminCall is one request of the admin and the status it must answer.
type adminCall struct {
	method, path string
	body         any
	want         int
}

// admin does an admin call that must answer c.want, decoding the answer
// into out when given.
func (k *Keystone) admin(t testing.TB, c adminCall, out any) {
	t.Helper()
	code, _, b, err := k.call(c.method, c.path, k.AdminToken(t), c.body)
	if c.method != http.MethodGet && c.method != http.MethodHead {
		k.writeMu.Lock()
		k.lastWrite = time.Now()
		k.writeMu.Unlock()
	}
	if err != nil {
		t.Fatalf("Keystone %s %s: %v", c.method, c.path, err)
	}
	if code != c.want {
		t.Fatalf("Keystone %s %s: HTTP %d, want %d: %s\nKeystone's log ends:\n%s", c.method, c.path, code, c.want, k.redact.Redact(string(b)), k.proc.Tail(20))
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("Keystone %s %s: %v: %s", c.method, c.path, err, b)
		}
	}
}

// IssueToken asks for a project-scoped token with a password, as a client
// would; it returns the HTTP status and the token (empty unless 201).
func (k *Keystone) IssueToken(c Credentials) (int, string, error) {
	userDomain, projectDomain := c.domains()
	body := map[string]any{"auth": map[string]any{
		"identity": map[string]any{
			"methods": []string{"password"},
			"password": map[string]any{"user": map[string]any{
				"name": c.User, "password": c.Password, "domain": map[string]string{"name": userDomain},
			}},
		},
		"scope": map[string]any{"project": map[string]any{
			"name": c.Project, "domain": map[string]string{"name": projectDomain},
		}},
	}}
	k.afterLastWrite()
	code, h, _, err := k.call(http.MethodPost, "/auth/tokens", "", body)
	if err != nil {
		return 0, "", err
	}
	tok := h.Get("X-Subject-Token")
	if code != http.StatusCreated {
		tok = ""
	}
	k.redact.Add(tok)
	return code, tok, nil
}

// afterLastWrite waits until the second after the last change this helper
// made. Keystone records revocation events (a user updated, a grant
// changed) and fernet tokens' issue times in whole seconds, and treats a
// token issued in the same second as an event as revoked: validating it
// answers 404 "Failed to validate token". Issuing in a later second avoids
// that race; Keystone runs on this machine, so both read the same clock.
func (k *Keystone) afterLastWrite() {
	k.writeMu.Lock()
	last := k.lastWrite
	k.writeMu.Unlock()
	if last.IsZero() {
		return
	}
	if wait := time.Until(last.Truncate(time.Second).Add(time.Second + 20*time.Millisecond)); wait > 0 {
		time.Sleep(wait)
	}
}

// Token issues a project-scoped token for c, failing the test otherwise.
func (k *Keystone) Token(t testing.TB, c Credentials) string {
	t.Helper()
	code, tok, err := k.IssueToken(c)
	if err != nil || code != http.StatusCreated || tok == "" {
		t.Fatalf("Keystone token for %s in project %s: HTTP %d, %v\nKeystone's log ends:\n%s", c.User, c.Project, code, err, k.proc.Tail(20))
	}
	return tok
}

// AdminToken is a token of the bootstrapped admin, reused for ten minutes.
func (k *Keystone) AdminToken(t testing.TB) string {
	t.Helper()
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.adminToken == "" || time.Since(k.tokenAt) > 10*time.Minute {
		k.adminToken, k.tokenAt = k.Token(t, k.Admin), time.Now()
	}
	return k.adminToken
}

// TokenInfo is what Keystone says about a token.
type TokenInfo struct {
	User    string
	Project string
	Roles   []string
	// Catalog lists "<type> <interface> <url>" for every endpoint.
	Catalog []string
}

// Validate asks Keystone about a token, as keystonemiddleware does.
func (k *Keystone) Validate(t testing.TB, token string) TokenInfo {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, k.URL+"/auth/tokens", nil)
	req.Header.Set("X-Auth-Token", k.AdminToken(t))
	req.Header.Set("X-Subject-Token", token)
	resp, err := keystoneClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("Keystone GET /auth/tokens: HTTP %d: %s", resp.StatusCode, b)
	}
	var body struct {
		Token struct {
			User    struct{ Name string }
			Project struct{ Name string }
			Roles   []struct{ Name string }
			Catalog []struct {
				Type      string
				Endpoints []struct{ Interface, URL string }
			}
		}
	}
	if err := json.Unmarshal(b, &body); err != nil {
		t.Fatal(err)
	}
	info := TokenInfo{User: body.Token.User.Name, Project: body.Token.Project.Name}
	for _, r := range body.Token.Roles {
		info.Roles = append(info.Roles, r.Name)
	}
	for _, s := range body.Token.Catalog {
		for _, e := range s.Endpoints {
			info.Catalog = append(info.Catalog, s.Type+" "+e.Interface+" "+e.URL)
		}
	}
	return info
}

type named struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// find returns the id of the one object of a collection with that name, or "".
func (k *Keystone) find(t testing.TB, collection string, query url.Values) string {
	t.Helper()
	var list map[string]json.RawMessage
	k.admin(t, adminCall{http.MethodGet, "/" + collection + "?" + query.Encode(), nil, http.StatusOK}, &list)
	var items []named
	if err := json.Unmarshal(list[collection], &items); err != nil {
		t.Fatalf("Keystone GET /%s: %v", collection, err)
	}
	if len(items) == 1 {
		return items[0].ID
	} else if len(items) > 1 {
		t.Fatalf("Keystone: %d %s match %v", len(items), collection, query)
	}
	return ""
}

// create POSTs one object and returns its id.
func (k *Keystone) create(t testing.TB, collection, member string, fields map[string]any) string {
	t.Helper()
	var out map[string]named
	k.admin(t, adminCall{http.MethodPost, "/" + collection, map[string]any{member: fields}, http.StatusCreated}, &out)
	return out[member].ID
}

// Project returns the id of a project of the Default domain, creating it
// when missing.
func (k *Keystone) Project(t testing.TB, name string) string {
	t.Helper()
	if id := k.find(t, "projects", url.Values{"name": {name}, "domain_id": {"default"}}); id != "" {
		return id
	}
	return k.create(t, "projects", "project", map[string]any{"name": name, "domain_id": "default"})
}

// Role returns the id of a role, creating it when missing.
func (k *Keystone) Role(t testing.TB, name string) string {
	t.Helper()
	if id := k.find(t, "roles", url.Values{"name": {name}}); id != "" {
		return id
	}
	return k.create(t, "roles", "role", map[string]any{"name": name})
}

// User creates a user of the Default domain with a password and a default
// project (given by name; "" for none) and returns its id. An existing user
// gets the password, unless it has it already: Keystone revokes a user's
// tokens when the password changes, and revocation events have a granularity
// of one second, so a needless change would refuse the tokens issued in the
// same second.
func (k *Keystone) User(t testing.TB, name, password, project string) string {
	t.Helper()
	k.redact.Add(password)
	fields := map[string]any{"name": name, "password": password, "domain_id": "default"}
	if project != "" {
		fields["default_project_id"] = k.Project(t, project)
	}
	id := k.find(t, "users", url.Values{"name": {name}, "domain_id": {"default"}})
	if id == "" {
		return k.create(t, "users", "user", fields)
	}
	if k.passwordWorks(name, password) {
		delete(fields, "password")
	}
	k.admin(t, adminCall{http.MethodPatch, "/users/" + id, map[string]any{"user": fields}, http.StatusOK}, nil)
	return id
}

// passwordWorks asks for an unscoped token.
func (k *Keystone) passwordWorks(user, password string) bool {
	body := map[string]any{"auth": map[string]any{"identity": map[string]any{
		"methods":  []string{"password"},
		"password": map[string]any{"user": map[string]any{"name": user, "password": password, "domain": map[string]string{"name": DefaultDomain}}},
	}}}
	code, _, _, err := k.call(http.MethodPost, "/auth/tokens", "", body)
	return err == nil && code == http.StatusCreated
}

// Grant gives a user (by name) a role on a project (by name), creating the
// role when missing.
func (k *Keystone) Grant(t testing.TB, userName, project, role string) {
	t.Helper()
	uid := k.find(t, "users", url.Values{"name": {userName}, "domain_id": {"default"}})
	if uid == "" {
		t.Fatalf("Keystone: no user %s in the Default domain", userName)
	}
	k.admin(t, adminCall{http.MethodPut, "/projects/" + k.Project(t, project) + "/users/" + uid + "/roles/" + k.Role(t, role), nil, http.StatusNoContent}, nil)
}

// ServiceProject and ServiceRole are the guide's: a service user lives in
// project "service" with role "service".
const (
	ServiceProject = "service"
	ServiceRole    = "service"
)

// ServiceUser does what the guide's standalone section does with the
// openstack CLI: a user in the Default domain with project "service" as its
// default project, granted role "service" on that project. It returns the
// user's credentials.
func (k *Keystone) ServiceUser(t testing.TB, name, password string) Credentials {
	t.Helper()
	k.User(t, name, password, ServiceProject)
	k.Grant(t, name, ServiceProject, ServiceRole)
	return Credentials{User: name, Password: password, Project: ServiceProject}
}

// Service registers a service in the catalog (name and type, as `openstack
// service create --name <name> <type>`) and returns its id; an existing one
// of that type and name is reused.
func (k *Keystone) Service(t testing.TB, name, typ string) string {
	t.Helper()
	var list struct{ Services []struct{ ID, Name string } }
	k.admin(t, adminCall{http.MethodGet, "/services?type=" + url.QueryEscape(typ), nil, http.StatusOK}, &list)
	for _, s := range list.Services {
		if s.Name == name {
			return s.ID
		}
	}
	return k.create(t, "services", "service", map[string]any{"name": name, "type": typ})
}

// Endpoint adds an endpoint of a service (by id) for an interface (public,
// internal, admin) in Region.
func (k *Keystone) Endpoint(t testing.TB, serviceID, iface, endpointURL string) {
	t.Helper()
	k.create(t, "endpoints", "endpoint", map[string]any{"service_id": serviceID, "interface": iface, "url": endpointURL, "region_id": k.Region})
}

// CLIEnv is the environment the openstack CLI (and other OpenStack clients)
// authenticate with as c, HOME in the test's directory so no clouds.yaml of
// the machine is read.
func (k *Keystone) CLIEnv(c Credentials) []string {
	userDomain, projectDomain := c.domains()
	return proc.CleanEnv(k.dir,
		"OS_AUTH_URL="+k.URL, "OS_IDENTITY_API_VERSION=3", "OS_AUTH_TYPE=password",
		"OS_USERNAME="+c.User, "OS_PASSWORD="+c.Password, "OS_PROJECT_NAME="+c.Project,
		"OS_USER_DOMAIN_NAME="+userDomain, "OS_PROJECT_DOMAIN_NAME="+projectDomain,
		"OS_REGION_NAME="+k.Region, "OS_INTERFACE=public")
}

// OpenStack runs the openstack CLI (Debian's python3-openstackclient) as c
// and returns its output; the password reaches it through the environment.
func (k *Keystone) OpenStack(t testing.TB, c Credentials, args ...string) string {
	t.Helper()
	bin := need(t, "openstack", "python3-openstackclient")
	out, err := proc.Run(keystoneCallTimeout, proc.Options{Argv: append([]string{bin}, args...), Dir: k.dir, Env: k.CLIEnv(c), Redactor: k.redact})
	if err != nil {
		t.Fatalf("openstack %v: %v\n%s", args, err, out)
	}
	return out
}
