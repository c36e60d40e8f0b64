package glance

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/types"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/excerpt"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/inivalue"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/storeconf"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
	"github.com/c5c3/glance-hooks/hooks/glance/observe"
	"github.com/c5c3/glance-hooks/hooks/glance/render"
)

// secretValue reads one key of a related Secret as an environment value.
// problem names the Secret and the key, never a value.
func secretValue(related metacontroller.ObjectMap, name, key string) (value string, uid types.UID, problem string, err error) {
	b, uid, problem, err := observe.SecretBytes(related, name, key)
	if problem != "" || err != nil {
		return "", "", problem, err
	}
	// Every credential read here reaches the pods through the environment.
	p := storeconf.EnvValueProblem(string(b))
	if p == "" {
		// A control character would reach the escaped password file and
		// the URL as it is: refused, naming the Secret and key only.
		p = inivalue.CharacterProblem(string(b))
	}
	if p != "" {
		return "", "", fmt.Sprintf("Secret %s key %s %s", excerpt.Name(name), excerpt.Name(key), p), nil
	}
	return string(b), uid, "", nil
}

// readCredentials reads the database Secret (username, and the password
// under the key database.secretRef.key names), the
// database TLS Secrets when the spec asks for TLS, and the service user's
// Secret (its key) the spec names. creds is nil unless both
// are complete; database is the DatabaseReady condition when the database
// Secret is not, user the ServiceUserReady condition.
func readCredentials(g *api.Glance, spec api.GlanceSpec, related metacontroller.ObjectMap) (creds *observe.Credentials, database *hook.Condition, user hook.Condition, err error) {
	user = hook.Condition{Type: model.CondServiceUserReady, Reason: model.ReasonWaitingForCredentials}
	dbRef := spec.Database.SecretRef
	var dbProblems []string
	var values [2]string
	var dbUID types.UID
	for i, key := range []string{api.DatabaseUsernameKey, dbRef.Key} {
		v, uid, p, err := secretValue(related, dbRef.Name, key)
		if err != nil {
			return nil, nil, user, err
		}
		if p != "" {
			dbProblems = append(dbProblems, p)
			if strings.HasSuffix(p, "does not exist") {
				break
			}
		}
		values[i], dbUID = v, uid
	}
	tlsMaterial, tlsProblems, err := readDatabaseTLS(related, activeDatabaseTLS(spec))
	if err != nil {
		return nil, nil, user, err
	}
	dbProblems = append(dbProblems, tlsProblems...)
	ref := spec.ServiceUser.SecretRef
	password, userUID, userProblem, err := secretValue(related, ref.Name, ref.Key)
	if err != nil {
		return nil, nil, user, err
	}
	if len(dbProblems) > 0 {
		database = &hook.Condition{Type: model.CondDatabaseReady, Reason: model.ReasonWaitingForDBCredentials,
			Message: strings.Join(dbProblems, "; ") + ": the database URL cannot be built, nothing is re-rendered and no schema Job starts"}
	}
	if userProblem != "" {
		user.Message = userProblem + ": glance-api cannot authenticate tokens without the service user's password, nothing is re-rendered"
	} else {
		user.Status, user.Reason = true, model.ReasonCredentialsAvailable
		user.Message = fmt.Sprintf("Secret %s carries %s", excerpt.Name(ref.Name), excerpt.Name(ref.Key))
	}
	if len(dbProblems) > 0 || userProblem != "" {
		return nil, database, user, nil
	}
	host, port := spec.Database.Address(g.Namespace)
	url := connectionURL(values[0], values[1], host, port, spec.Database.Database) + databaseTLSQuery(activeDatabaseTLS(spec))
	c := &observe.Credentials{Connection: render.OsloEnvValue(url), ServicePassword: render.OsloEnvValue(password),
		Digest: credentialsDigest(dbUID, userUID, append([]string{url, password}, tlsMaterial...)...)}
	return c, database, user, nil
}

// databaseConf is the [database] section; connection comes from
// OS_DATABASE__CONNECTION (EnvDatabaseConnection). glance-api and
// glance-manage wait for the database as long as it takes. A pooled
// connection is replaced once it is 10 minutes old (oslo.db keeps one an
// hour), as the reference renders it, so one a proxy in front of the
// database dropped while idle is not handed to a request. The pool's size
// stays oslo.db's, as the reference leaves it: no bound fits a
// mariadb-operator User's default limit during a roll, and one below what
// a process does at once makes its requests wait for a connection
// (docs/stopping.md, "The database pool").
func databaseConf(render.ConfInput) (render.ConfPart, error) {
	return render.ConfPart{Sections: []storeconf.Section{{Name: "database", Options: []storeconf.Option{
		{Key: "connection_recycle_time", Value: "600"},
		{Key: "max_retries", Value: "-1"},
	}}}}, nil
}

// connectionURL is the SQLAlchemy URL glance-manage and glance-api take:
// PyMySQL over TCP, user and password percent-encoded (SQLAlchemy decodes
// them), so any character works in either. It has no '$' left for
// oslo.config to interpolate (the database name and host admit none), but
// goes through osloEnvValue all the same, as every environment value does.
func connectionURL(user, password, host string, port int32, database string) string {
	if strings.Contains(host, ":") {
		host = "[" + host + "]" // an IPv6 address
	}
	return "mysql+pymysql://" + percentEncode(user) + ":" + percentEncode(password) + "@" +
		host + ":" + strconv.Itoa(int(port)) + "/" + database + "?charset=utf8"
}

// percentEncode encodes every byte but RFC 3986's unreserved characters.
// That includes '$' and '%': neither reaches oslo.config's interpolation or
// a ConfigParser as anything but an escape SQLAlchemy decodes.
func percentEncode(s string) string {
	const hexDigits = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hexDigits[c>>4])
		b.WriteByte(hexDigits[c&15])
	}
	return b.String()
}

// digestContext separates this digest from any other use of the same keys.
const digestContext = "glance-hooks credentials digest v1"

// credentialsDigest is what the pod templates carry so a change of the
// database URL (user, password, host, port, database, TLS mode), of the
// service user's password or of the database TLS files (CA bundle, client
// certificate and key) rolls the pods: the pods read the first two from
// Secrets through environment variables, which only a restart re-reads,
// and PyMySQL reads the files at every connect, but a pod whose files
// changed under it would mix old and new connections until it ends. It is
// an HMAC-SHA256 of the URL and the password, keyed by the uids of the two
// Secrets, cut to 32 hex digits. The uids are random (UUIDv4) and only someone who can read
// the Secrets sees them, so someone who can read the Deployment but not the
// Secrets cannot test guessed passwords against the digest, as they could
// against a plain hash of a password. The same Secrets with the same data
// give the same digest; recreating a Secret (a new uid) rolls the pods once.
// The parts are the URL, the password and the TLS files' content; without
// TLS the digest is what it was before TLS existed, so pods do not roll.
func credentialsDigest(dbSecret, userSecret types.UID, parts ...string) string {
	mac := hmac.New(sha256.New, framed(digestContext, string(dbSecret), string(userSecret)))
	mac.Write(framed(parts...))
	return hex.EncodeToString(mac.Sum(nil))[:32]
}

// framed joins strings, each prefixed by its 8-byte big-endian length, so
// no two different lists give the same bytes.
func framed(parts ...string) []byte {
	var out []byte
	var n [8]byte
	for _, p := range parts {
		binary.BigEndian.PutUint64(n[:], uint64(len(p)))
		out = append(out, n[:]...)
		out = append(out, p...)
	}
	return out
}
