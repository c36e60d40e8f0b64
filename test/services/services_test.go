package services

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/test/testcert"
)

func TestPercentEncodeKeepsOnlyUnreserved(t *testing.T) {
	assert.Equal(t, "p%40ss%3Aw%2Fo%25rd%27q%5C%20~._-", PercentEncode(`p@ss:w/o%rd'q\ ~._-`))
}

func TestMariaDBUsersAsTheDevstackMakesThem(t *testing.T) {
	began := time.Now()
	db := StartMariaDB(t)
	t.Logf("MariaDB up in %s on %s", time.Since(began).Round(time.Millisecond), db.Addr())

	assert.Equal(t, [][]string{{"0"}}, db.Query(t, "SELECT COUNT(*) FROM mysql.global_priv WHERE User=''"), "anonymous users are dropped")

	// Every character that breaks URL or SQL quoting.
	password := `p@ss:w/o%rd'q\"` + RandomSecret()
	db.CreateDatabase(t, "glance")
	db.CreateDatabase(t, "glance") // again: nothing changes
	db.CreateUser(t, "glance", password, "glance")
	assert.Equal(t, [][]string{{"utf8mb3", "utf8mb3_general_ci"}},
		db.Query(t, "SELECT default_character_set_name, default_collation_name FROM information_schema.schemata WHERE schema_name='glance'"))
	assert.Equal(t, [][]string{{"10"}}, db.Query(t, "SELECT max_user_connections FROM mysql.user WHERE User='glance' AND Host='%'"))

	url := db.URL("glance", password, "glance")
	db.SetMaxUserConnections(t, "glance", 200)
	assert.Equal(t, [][]string{{"200"}}, db.Query(t, "SELECT max_user_connections FROM mysql.user WHERE User='glance' AND Host='%'"),
		"the limit is raised as an operator raises a User's maxUserConnections")
	assert.Equal(t, "glance@%", db.CheckLogin(t, url), "the password is kept")
	db.SetMaxUserConnections(t, "glance", MaxUserConnections)
	assert.True(t, strings.HasPrefix(url, "mysql+pymysql://glance:p%40ss%3Aw%2Fo%25rd%27q%5C%22"), "user info percent-encoded")
	assert.True(t, strings.HasSuffix(url, "@"+db.Addr()+"/glance?charset=utf8"))
	assert.Equal(t, "glance@%", db.CheckLogin(t, url), "the user logs in over TCP with the URL OpenStack services take")

	// The user may create tables in its database, and only there.
	_, err := db.Login(db.URL("glance", password, "mysql"))
	assert.Error(t, err, "no grant on another database")

	// CreateUser again sets a new password: the old one stops working.
	newPassword := RandomSecret()
	db.CreateUser(t, "glance", newPassword, "glance")
	assert.Equal(t, "glance@%", db.CheckLogin(t, db.URL("glance", newPassword, "glance")))
	out, err := db.Login(url)
	require.Error(t, err, "the old password is refused")
	assert.Contains(t, out, "Access denied")
	assert.NotContains(t, out+err.Error(), password, "the password never shows")
	assert.NotContains(t, db.Log(), newPassword)
}

func TestMemcachedAnswers(t *testing.T) {
	began := time.Now()
	m := StartMemcached(t)
	t.Logf("memcached up in %s on %s", time.Since(began).Round(time.Millisecond), m.Addr())
	v, err := m.Version()
	require.NoError(t, err)
	assert.Regexp(t, `^1\.\d+\.\d+`, v)
	assert.NotEmpty(t, m.Stats(t)["pid"])
}

func TestKeystoneBootstrapServiceUserAndTokens(t *testing.T) {
	db := StartMariaDB(t)
	began := time.Now()
	ks := StartKeystone(t, db)
	t.Logf("Keystone up in %s at %s", time.Since(began).Round(time.Millisecond), ks.URL)
	assert.Contains(t, db.Tables(t, "keystone"), "project", "db_sync made the schema")

	// The guide's standalone section, through the REST API.
	password := RandomSecret()
	glance := ks.ServiceUser(t, "glance", password)
	again := ks.ServiceUser(t, "glance", password)
	assert.Equal(t, glance, again, "ServiceUser twice changes nothing")
	image := ks.Service(t, "glance", "image")
	ks.Endpoint(t, image, "public", "http://127.0.0.1:9292")
	ks.Endpoint(t, image, "internal", "http://127.0.0.1:9292")

	tok := ks.Token(t, glance)
	info := ks.Validate(t, tok)
	assert.Equal(t, "glance", info.User)
	assert.Equal(t, "service", info.Project)
	assert.Contains(t, info.Roles, "service")
	// keystonemiddleware needs the internal identity endpoint.
	assert.Subset(t, info.Catalog, []string{
		"identity public " + ks.URL, "identity internal " + ks.URL,
		"image public http://127.0.0.1:9292", "image internal http://127.0.0.1:9292",
	})

	code, wrong, err := ks.IssueToken(Credentials{User: "glance", Password: "not-" + password, Project: "service"})
	require.NoError(t, err)
	assert.Equal(t, http.StatusUnauthorized, code)
	assert.Empty(t, wrong)

	// The CLI the guide uses works against it too, as the glance user.
	out := ks.OpenStack(t, glance, "token", "issue", "-f", "value", "-c", "project_id")
	assert.Equal(t, ks.Project(t, "service"), strings.TrimSpace(out))
	assigned := ks.OpenStack(t, ks.Admin, "role", "assignment", "list", "--user", "glance", "--project", "service", "--names", "-f", "value", "-c", "Role")
	assert.Equal(t, "service", strings.TrimSpace(assigned))

	assert.NotContains(t, ks.Log(), password)
	assert.NotContains(t, ks.Log(), ks.Admin.Password)
}

func TestS3ChecksSignatures(t *testing.T) {
	began := time.Now()
	s := StartS3(t, S3Options{Region: "garage", Buckets: []string{"glance-images", "glance-images-2"}})
	t.Logf("%s up in %s at %s", s.Version(t), time.Since(began).Round(time.Millisecond), s.Endpoint)
	assert.Equal(t, http.StatusForbidden, s.UnsignedStatus(t, "glance-images"))
	assert.Equal(t, map[string]map[string]S3Object{"glance-images": {}, "glance-images-2": {}}, s.Objects(t, "glance-images", "glance-images-2"))
}

// With TLS the server serves only https://, with the certificate a test CA
// issued: a client trusting that CA (the Go client, boto3) gets answers, one
// trusting the system roots alone is refused the handshake.
func TestS3ServesTLSWithATestCA(t *testing.T) {
	ca, err := testcert.NewCA("S3 test CA")
	require.NoError(t, err)
	leaf, err := ca.Issue("127.0.0.1", "127.0.0.1")
	require.NoError(t, err)
	s := StartS3(t, S3Options{Buckets: []string{"glance-images"}, TLS: &S3TLS{CertPEM: leaf.CertPEM, KeyPEM: leaf.KeyPEM, CAPEM: ca.CertPEM}})
	assert.True(t, strings.HasPrefix(s.Endpoint, "https://"), s.Endpoint)
	assert.Equal(t, http.StatusForbidden, s.UnsignedStatus(t, "glance-images"))
	assert.Equal(t, map[string]map[string]S3Object{"glance-images": {}}, s.Objects(t, "glance-images"), "boto3 verifies it with the CA")

	_, err = (&http.Client{Timeout: 10 * time.Second}).Get(s.Endpoint + "/glance-images")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "certificate signed by unknown authority")
	_, err = (&http.Client{Timeout: 10 * time.Second}).Get(strings.Replace(s.Endpoint, "https://", "http://", 1) + "/glance-images")
	require.Error(t, err, "no plain HTTP beside TLS")
}
