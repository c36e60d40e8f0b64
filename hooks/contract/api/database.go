package api

import (
	"regexp"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/c5c3/glance-hooks/hooks/contract/problem"
)

// The database's part of a Glance spec (spec.database): its defaults and
// its rules, TLS and the credentials mode among them. Its type,
// DatabaseSpec, stays in glance.go: a ControlPlane's infrastructure names
// its database with it too. Its behaviour ([database], the schema Jobs,
// DatabaseReady) is hooks/glance/credentials.go and the report stage.

// The database the guide's standalone Glance uses.
const (
	DefaultDatabaseCluster = "openstack-db"
	DefaultDatabaseName    = "glance"
	DefaultDatabaseSecret  = "glance-db"
	DefaultDatabasePort    = int32(3306)
)

func databaseDefault(s *GlanceSpec, _ string) { s.Database = databaseWithDefaults(s.Database) }

// databaseWithDefaults names the conventional cluster only when no database
// is given at all: a given one with a host and no clusterRef stays external.
func databaseWithDefaults(in *DatabaseSpec) *DatabaseSpec {
	db := DatabaseSpec{
		ClusterRef: &LocalObjectReference{Name: DefaultDatabaseCluster},
		Database:   DefaultDatabaseName,
		SecretRef:  SecretKeyRef{Name: DefaultDatabaseSecret},
	}
	if in != nil {
		db = *in
	}
	if db.SecretRef.Key == "" {
		db.SecretRef.Key = DatabasePasswordKey
	}
	if db.Port == nil {
		port := DefaultDatabasePort
		db.Port = &port
	}
	return &db
}

// Address is where the database server listens: the cluster's Service
// <clusterRef>.<namespace>.svc, or the external host; the port as set.
// Call it on a spec with defaults.
func (d DatabaseSpec) Address(namespace string) (host string, port int32) {
	host = d.Host
	if d.ClusterRef != nil {
		host = d.ClusterRef.Name + "." + namespace + ".svc"
	}
	if d.Port != nil {
		port = *d.Port
	}
	return host, port
}

// databaseRules are the part's rules, on a spec with its defaults. Paths
// are relative to the Glance settings.
func databaseRules(s GlanceSpec) problem.List {
	at := field.NewPath("database")
	return append(databaseProblems(at, *s.Database), databaseTLSProblems(at, *s.Database)...)
}

// databaseName is what a database name may hold: it goes into the
// connection URL as it is.
var databaseName = regexp.MustCompile(`^[A-Za-z0-9_]{1,64}$`)

// databaseProblems checks where the database is: a cluster in the namespace
// or an external host, not both; a port; a database name; the Secret.
func databaseProblems(at *field.Path, d DatabaseSpec) problem.List {
	var l problem.List
	switch {
	case (d.ClusterRef != nil) == (d.Host != ""):
		l = append(l, problem.At(at, "exactly one of clusterRef or host must be set"))
	case d.ClusterRef != nil:
		l = append(l, RequiredValue(at.Child("clusterRef", "name"), d.ClusterRef.Name)...)
	default:
		l = append(l, hostProblems(at.Child("host"), d.Host)...)
	}
	if d.Port != nil && (*d.Port < 1 || *d.Port > 65535) {
		l = append(l, problem.Invalid(at.Child("port"), "must be between 1 and 65535"))
	}
	if d.Database == "" {
		l = append(l, problem.Required(at.Child("database")))
	} else if !databaseName.MatchString(d.Database) {
		l = append(l, problem.Invalid(at.Child("database"), "must be 1 to 64 letters, digits or '_'"))
	}
	l = append(l, RequiredValue(at.Child("secretRef", "name"), d.SecretRef.Name)...)
	return append(l, secretKeyProblems(at.Child("secretRef", "key"), d.SecretRef.Key)...)
}

// hostProblems checks a server's DNS name or IP address.
func hostProblems(at *field.Path, host string) problem.List {
	if !IsHost(host) {
		return problem.List{problem.Invalid(at, "must be a DNS name or an IP address")}
	}
	return nil
}

// databaseTLSProblems checks spec.database.tls and the credentials mode.
func databaseTLSProblems(at *field.Path, d DatabaseSpec) problem.List {
	var l problem.List
	switch CheckCredentialsMode(d.CredentialsMode, d.ClusterRef != nil) {
	case CredentialsModeUnknown:
		l = append(l, problem.Invalid(at.Child("credentialsMode"), "must be Static or Dynamic"))
	case CredentialsModeUnmanaged:
		l = append(l, problem.At(at.Child("credentialsMode"), "credentialsMode Dynamic requires clusterRef (managed mode)"))
	}
	t := d.TLS
	if t == nil {
		return l
	}
	at = at.Child("tls")
	switch t.Mode {
	case "", DBTLSDisabled, DBTLSPrefer, DBTLSRequire, DBTLSVerifyCA, DBTLSVerifyFull:
	default:
		l = append(l, problem.Invalid(at.Child("mode"), "must be disabled, prefer, require, verify-ca or verify-full"))
	}
	// The names and the key reach the pods' projected volume.
	l = append(l, secretNameProblems(at.Child("caBundleSecretRef", "name"), t.CABundleSecretRef.Name)...)
	l = append(l, secretNameProblems(at.Child("clientCertSecretRef", "name"), t.ClientCertSecretRef.Name)...)
	l = append(l, secretKeyProblems(at.Child("caBundleSecretRef", "key"), t.CABundleSecretRef.Key)...)
	if t.ClientCertSecretRef.Key != "" {
		l = append(l, problem.Invalid(at.Child("clientCertSecretRef", "key"),
			"must not be set: the client certificate Secret is a kubernetes.io/tls Secret, read as tls.crt and tls.key"))
	}
	return l
}

// secretKeyProblems checks a Secret's data key a spec names; empty is its
// default.
func secretKeyProblems(at *field.Path, key string) problem.List {
	if key != "" && len(validation.IsConfigMapKey(key)) > 0 {
		return problem.List{problem.Invalid(at, "must be a Secret data key (letters, digits, '-', '_', '.')")}
	}
	return nil
}

// secretNameProblems checks the name of a Secret in the Glance's namespace.
func secretNameProblems(at *field.Path, name string) problem.List {
	if name == "" {
		return problem.List{problem.Required(at)}
	}
	if len(validation.IsDNS1123Subdomain(name)) > 0 {
		return problem.List{problem.Invalid(at, "must be a Secret's name (a DNS subdomain)")}
	}
	return nil
}
