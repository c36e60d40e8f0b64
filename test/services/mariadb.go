package services

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/c5c3/glance-hooks/test/proc"
	"github.com/c5c3/glance-hooks/test/testcert"
)

// Bounds of MariaDB's steps; a cold start takes about a second here.
const (
	mariadbInstallTimeout = 2 * time.Minute
	mariadbReadyTimeout   = time.Minute
	sqlTimeout            = time.Minute
)

// MariaDB is a mariadbd of its own: own data directory, UNIX socket and
// loopback port. root logs in over the socket only (unix_socket auth, as
// the OS user running the test); the users a test creates log in over TCP.
type MariaDB struct {
	// Host and Port are where it listens for TCP clients.
	Host string
	Port int
	// Socket is its UNIX socket, for root.
	Socket string
	// CA issued the server's certificate (for Host) and issues the client
	// certificates of users that must present one (REQUIRE X509). TLS is
	// offered to every client and required of none but such users.
	CA testcert.CA

	client string
	dir    string
	proc   *proc.Process
	redact *proc.Redactor
}

// StartMariaDB initialises a data directory with mariadb-install-db, starts
// mariadbd on 127.0.0.1 and a free port, waits until root can run SQL over
// the socket, and drops the anonymous users (they would shadow a user's
// login from localhost). No file under /etc/mysql is read (--no-defaults).
func StartMariaDB(t testing.TB) *MariaDB {
	t.Helper()
	installDB := need(t, "mariadb-install-db", "mariadb-server")
	mariadbd := need(t, "mariadbd", "mariadb-server")
	client := need(t, "mariadb", "mariadb-client")
	dir := t.TempDir()
	data, tmp := filepath.Join(dir, "data"), filepath.Join(dir, "tmp")
	mkdirs(t, tmp)
	sock := filepath.Join(shortTempDir(t, "mariadb-"), "mysqld.sock")
	m := &MariaDB{Host: "127.0.0.1", Socket: sock, client: client, dir: dir, redact: &proc.Redactor{}}

	// Running as root needs --user=root, or mariadbd refuses to start.
	var userFlag []string
	if os.Geteuid() == 0 {
		userFlag = []string{"--user=root"}
	}
	install := append([]string{installDB, "--no-defaults", "--datadir=" + data,
		"--auth-root-authentication-method=socket", "--skip-test-db"}, userFlag...)
	if out, err := proc.Run(mariadbInstallTimeout, proc.Options{Argv: install, Dir: dir, Env: proc.CleanEnv(dir)}); err != nil {
		t.Fatalf("mariadb-install-db: %v\n%s", err, proc.LastLines(out, 30))
	}

	m.Port = proc.FreePort(t)
	tlsArgs := m.serverTLS(t)
	argv := append([]string{mariadbd, "--no-defaults", "--datadir=" + data, "--socket=" + sock,
		"--port=" + strconv.Itoa(m.Port), "--bind-address=" + m.Host,
		"--pid-file=" + filepath.Join(dir, "mariadbd.pid"), "--tmpdir=" + tmp,
		// Small and quick: a test database holds a few schemas.
		"--innodb-buffer-pool-size=64M", "--skip-log-bin"}, append(tlsArgs, userFlag...)...)
	m.proc = proc.Start(t, proc.Options{Name: "mariadbd", Argv: argv, Log: filepath.Join(dir, "mariadbd.log"), Redactor: m.redact})
	if _, err := m.proc.WaitFor(mariadbReadyTimeout, "SQL over its socket", func() error {
		_, err := m.sql("SELECT 1")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	m.Exec(t, "DELETE FROM mysql.global_priv WHERE User=''; FLUSH PRIVILEGES;")
	return m
}

// serverTLS makes the CA and the server's certificate for Host, writes
// them to the server's directory and returns mariadbd's TLS flags.
func (m *MariaDB) serverTLS(t testing.TB) []string {
	t.Helper()
	ca, err := testcert.NewCA("mariadb-ca")
	if err != nil {
		t.Fatal(err)
	}
	server, err := ca.Issue("mariadb", m.Host)
	if err != nil {
		t.Fatal(err)
	}
	m.CA = ca
	tlsDir := filepath.Join(m.dir, "tls")
	mkdirs(t, tlsDir)
	certFile, keyFile, err := server.Write(tlsDir)
	if err != nil {
		t.Fatal(err)
	}
	caFile := filepath.Join(tlsDir, "ca.crt")
	writeFile(t, caFile, ca.CertPEM, 0o644)
	return []string{"--ssl-ca=" + caFile, "--ssl-cert=" + certFile, "--ssl-key=" + keyFile}
}

// RequireX509 has a user log in only over TLS with a client certificate
// the CA issued; password logins in the clear are refused from then on.
func (m *MariaDB) RequireX509(t testing.TB, user string) {
	t.Helper()
	m.Exec(t, fmt.Sprintf("ALTER USER %s@'%%' REQUIRE X509; FLUSH PRIVILEGES;", quoteString(user)))
}

// Addr is host:port.
func (m *MariaDB) Addr() string { return proc.HostPort(m.Host, m.Port) }

// Redactor masks the passwords of the users this server was given.
func (m *MariaDB) Redactor() *proc.Redactor { return m.redact }

// Log is mariadbd's log so far.
func (m *MariaDB) Log() string { return m.proc.Log() }

// sql runs statements as root over the socket. They go on stdin, never on
// the command line, since they may hold passwords.
func (m *MariaDB) sql(statements string) (string, error) {
	return proc.Run(sqlTimeout, proc.Options{
		Argv:     []string{m.client, "--no-defaults", "--socket=" + m.Socket, "--user=root", "--batch", "--skip-column-names"},
		Dir:      m.dir,
		Env:      proc.CleanEnv(m.dir),
		Stdin:    strings.NewReader(statements),
		Redactor: m.redact,
	})
}

// Exec runs SQL statements as root.
func (m *MariaDB) Exec(t testing.TB, statements string) {
	t.Helper()
	if out, err := m.sql(statements); err != nil {
		t.Fatalf("SQL as root: %v\n%s", err, out)
	}
}

// Query runs one query as root and returns its rows, columns split.
func (m *MariaDB) Query(t testing.TB, query string) [][]string {
	t.Helper()
	out, err := m.sql(query)
	if err != nil {
		t.Fatalf("SQL as root: %v\n%s", err, out)
	}
	var rows [][]string
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if line != "" {
			rows = append(rows, strings.Split(line, "\t"))
		}
	}
	return rows
}

// Tables lists the tables of a database, sorted.
func (m *MariaDB) Tables(t testing.TB, database string) []string {
	t.Helper()
	var out []string
	for _, r := range m.Query(t, "SELECT table_name FROM information_schema.tables WHERE table_schema = "+quoteString(database)+" ORDER BY table_name") {
		out = append(out, r[0])
	}
	return out
}

// CreateDatabase creates a database as the guide's devstack does (a
// mariadb-operator Database: character set utf8, collation
// utf8_general_ci). It does nothing when the database exists.
func (m *MariaDB) CreateDatabase(t testing.TB, name string) {
	t.Helper()
	id := mustIdentifier(t, name)
	m.Exec(t, fmt.Sprintf("CREATE DATABASE IF NOT EXISTS %s CHARACTER SET = 'utf8' COLLATE = 'utf8_general_ci';", id))
}

// MaxUserConnections is the connection limit a mariadb-operator User gets
// by default, and so the guide's devstack users.
const MaxUserConnections = 10

// CreateUser creates a user that may log in from any host with password
// and grants it every privilege on database, as the guide's devstack does
// (a mariadb-operator User, host "%", maxUserConnections 10, and a Grant of
// ALL on database.*). Any password works (@ : / % ' \ included). It does
// nothing but set the password when the user exists.
func (m *MariaDB) CreateUser(t testing.TB, user, password, database string) {
	t.Helper()
	m.redact.Add(password)
	db := mustIdentifier(t, database)
	u := quoteString(user) + "@'%'"
	m.Exec(t, fmt.Sprintf(`CREATE USER IF NOT EXISTS %[1]s IDENTIFIED BY %[2]s WITH MAX_USER_CONNECTIONS %[3]d;
ALTER USER %[1]s IDENTIFIED BY %[2]s;
GRANT ALL PRIVILEGES ON %[4]s.* TO %[1]s;
FLUSH PRIVILEGES;`, u, quoteString(password), MaxUserConnections, db))
}

// SetMaxUserConnections changes user's connection limit, as an operator
// raises a mariadb-operator User's maxUserConnections.
func (m *MariaDB) SetMaxUserConnections(t testing.TB, user string, n int) {
	t.Helper()
	m.Exec(t, fmt.Sprintf("ALTER USER %s@'%%' WITH MAX_USER_CONNECTIONS %d;", quoteString(user), n))
}

// UserConnections is how many connections user holds now: those
// MAX_USER_CONNECTIONS counts, idle ones in a client's pool included. It
// returns an error rather than failing a test, so a sampler beside a load
// may call it.
func (m *MariaDB) UserConnections(user string) (int, error) {
	out, err := m.sql("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE USER = " + quoteString(user) + ";")
	if err != nil {
		return 0, fmt.Errorf("counting %s's connections: %w\n%s", user, err, out)
	}
	return strconv.Atoi(strings.TrimSpace(out))
}

// URL is the SQLAlchemy URL OpenStack services take ([database]
// connection): PyMySQL over TCP, user and password percent-encoded.
func (m *MariaDB) URL(user, password, database string) string {
	return fmt.Sprintf("mysql+pymysql://%s:%s@%s/%s?charset=utf8", PercentEncode(user), PercentEncode(password), m.Addr(), database)
}

// CheckLogin connects with a URL the way OpenStack services do
// (SQLAlchemy and PyMySQL of the system interpreter) and returns the
// account MariaDB saw, e.g. "glance@%".
func (m *MariaDB) CheckLogin(t testing.TB, url string) string {
	t.Helper()
	out, err := m.Login(url)
	if err != nil {
		t.Fatalf("logging in to MariaDB with SQLAlchemy: %v\n%s", err, proc.LastLines(out, 20))
	}
	return out
}

// Login is CheckLogin returning the error and Python's output. The URL
// reaches Python through the environment, not the command line.
func (m *MariaDB) Login(url string) (string, error) {
	m.redact.Add(url)
	out, err := proc.Run(sqlTimeout, proc.Options{
		Argv: []string{Python, "-c", `import os, sqlalchemy
e = sqlalchemy.create_engine(os.environ["DB_URL"])
with e.connect() as c:
    print(c.execute(sqlalchemy.text("SELECT CURRENT_USER()")).scalar())`},
		Dir:      m.dir,
		Env:      proc.CleanEnv(m.dir, "DB_URL="+url),
		Redactor: m.redact,
	})
	return strings.TrimSpace(out), err
}

var identifier = regexp.MustCompile(`^[A-Za-z0-9_]{1,64}$`)

// mustIdentifier quotes a database name; only plain names are accepted, so
// no quoting rule can be got wrong.
func mustIdentifier(t testing.TB, name string) string {
	t.Helper()
	if !identifier.MatchString(name) {
		t.Fatalf("database name %q: use letters, digits and _ only", name)
	}
	return "`" + name + "`"
}

// quoteString is a SQL string literal under MariaDB's default sql_mode
// (backslash escapes on).
func quoteString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\x00", `\0`).Replace(s) + "'"
}
