package glance

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/excerpt"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/glance/observe"
)

// The database TLS (spec.database.tls) reaches every glance program that
// connects to the database (glance-api, the schema Jobs' and the purge
// CronJob's glance-manage) as files and as query parameters of the URL in
// OS_DATABASE__CONNECTION: the CA bundle and the client certificate and key
// are projected from the Secrets the spec names into one read-only
// directory, and the URL names the files.
const (
	// DatabaseTLSDir is where the files are mounted.
	DatabaseTLSDir = "/etc/glance/database-tls"
	// VolumeDatabaseTLS is the pod volume projecting them.
	VolumeDatabaseTLS = "database-tls"
	// DatabaseCAFile, DatabaseCertFile and DatabaseKeyFile are the files'
	// names in DatabaseTLSDir.
	DatabaseCAFile   = "ca.crt"
	DatabaseCertFile = "tls.crt"
	DatabaseKeyFile  = "tls.key"
	// DefaultDatabaseCAKey is the CA bundle Secret's key when the spec names
	// none.
	DefaultDatabaseCAKey = "ca.crt"
)

// activeDatabaseTLS is the spec's database TLS when it asks for TLS: nil
// when it has none or its mode is disabled (then nothing is mounted, the
// Secrets are not read and the URL has no TLS parameter).
func activeDatabaseTLS(spec api.GlanceSpec) *api.DatabaseTLSSpec {
	if spec.Database == nil || spec.Database.TLS == nil || spec.Database.TLS.Mode == api.DBTLSDisabled {
		return nil
	}
	return spec.Database.TLS
}

// databaseTLSMode is the mode with its default, verify-full.
func databaseTLSMode(t *api.DatabaseTLSSpec) string {
	if t.Mode == "" {
		return api.DBTLSVerifyFull
	}
	return t.Mode
}

func databaseCAKey(t *api.DatabaseTLSSpec) string {
	if t.CABundleSecretRef.Key == "" {
		return DefaultDatabaseCAKey
	}
	return t.CABundleSecretRef.Key
}

// databaseTLSSecrets are the Secrets the active database TLS names.
func databaseTLSSecrets(spec api.GlanceSpec) []string {
	t := activeDatabaseTLS(spec)
	if t == nil {
		return nil
	}
	return []string{t.CABundleSecretRef.Name, t.ClientCertSecretRef.Name}
}

// databaseTLSQuery is what the mode adds to the connection URL, after its
// charset parameter. SQLAlchemy's MySQL dialects (1.4 and 2.0) gather the
// ssl_ca, ssl_cert, ssl_key and ssl_check_hostname query parameters into
// the ssl argument of PyMySQL; other ssl_* parameters would reach PyMySQL
// as strings (ssl_verify_cert=false would be true), so only those four are
// used. PyMySQL (1.0 and 1.1) then verifies the server's chain when a CA is
// given and its host name when ssl_check_hostname is true as well; without
// a CA it verifies nothing but still speaks TLS (the client certificate
// alone asks for it).
//
// PyMySQL speaks TLS only when the server offers it: against a server
// without TLS every mode connects in the clear. What refuses that is the
// server's REQUIRE SSL or REQUIRE X509 on the database user, so "require"
// and "prefer" behave alike on the client side (docs/hooks.md says so).
func databaseTLSQuery(t *api.DatabaseTLSSpec) string {
	if t == nil {
		return ""
	}
	client := "&ssl_cert=" + DatabaseTLSDir + "/" + DatabaseCertFile + "&ssl_key=" + DatabaseTLSDir + "/" + DatabaseKeyFile
	ca := "&ssl_ca=" + DatabaseTLSDir + "/" + DatabaseCAFile
	switch databaseTLSMode(t) {
	case api.DBTLSPrefer, api.DBTLSRequire:
		return client
	case api.DBTLSVerifyCA:
		return ca + client + "&ssl_check_hostname=false"
	default:
		return ca + client + "&ssl_check_hostname=true"
	}
}

// readDatabaseTLS reads the CA bundle and the client certificate and key
// of the active database TLS and checks them as PyMySQL will load them:
// the bundle holds certificates, the certificate and key parse and belong
// together. material is their content, for the credentials digest;
// problems name a Secret and a key, never a value.
func readDatabaseTLS(related metacontroller.ObjectMap, t *api.DatabaseTLSSpec) (material, problems []string, err error) {
	if t == nil {
		return nil, nil, nil
	}
	caName, caKey := t.CABundleSecretRef.Name, databaseCAKey(t)
	ca, _, p, err := observe.SecretBytes(related, caName, caKey)
	if err != nil {
		return nil, nil, err
	}
	switch {
	case p != "":
		problems = append(problems, p)
	case !holdsCertificates(ca):
		problems = append(problems, fmt.Sprintf("Secret %s key %s holds no PEM certificate", excerpt.Name(caName), excerpt.Name(caKey)))
	}
	certName := t.ClientCertSecretRef.Name
	pair := [2][]byte{}
	for i, key := range []string{corev1.TLSCertKey, corev1.TLSPrivateKeyKey} {
		if pair[i], _, p, err = observe.SecretBytes(related, certName, key); err != nil {
			return nil, nil, err
		}
		if p != "" {
			problems = append(problems, p)
			break
		}
	}
	if pair[0] != nil && pair[1] != nil {
		if _, err := tls.X509KeyPair(pair[0], pair[1]); err != nil {
			problems = append(problems, fmt.Sprintf("Secret %s keys %s and %s are not a PEM certificate and its unencrypted private key",
				excerpt.Name(certName), corev1.TLSCertKey, corev1.TLSPrivateKeyKey))
		}
	}
	if len(problems) > 0 {
		return nil, problems, nil
	}
	return []string{string(ca), string(pair[0]), string(pair[1])}, nil, nil
}

// holdsCertificates reports whether b is PEM with at least one certificate
// block and every certificate block parses.
func holdsCertificates(b []byte) bool {
	found := false
	for {
		var block *pem.Block
		block, b = pem.Decode(b)
		if block == nil {
			return found
		}
		if block.Type != "CERTIFICATE" {
			continue
		}
		if _, err := x509.ParseCertificate(block.Bytes); err != nil {
			return false
		}
		found = true
	}
}

// mountDatabaseTLS projects the active database TLS's files into a pod of
// glance programs and mounts them, read-only, into each of its containers.
// The files are readable by the glance group (the pods' fsGroup) only:
// the key is a secret, and the bundle and certificate come with it.
func mountDatabaseTLS(pod *corev1.PodSpec, spec api.GlanceSpec) {
	t := activeDatabaseTLS(spec)
	if t == nil {
		return
	}
	mode := int32(0o440)
	pod.Volumes = append(pod.Volumes, corev1.Volume{Name: VolumeDatabaseTLS, VolumeSource: corev1.VolumeSource{
		Projected: &corev1.ProjectedVolumeSource{DefaultMode: &mode, Sources: []corev1.VolumeProjection{
			{Secret: &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: t.CABundleSecretRef.Name},
				Items: []corev1.KeyToPath{{Key: databaseCAKey(t), Path: DatabaseCAFile}}}},
			{Secret: &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: t.ClientCertSecretRef.Name},
				Items: []corev1.KeyToPath{{Key: corev1.TLSCertKey, Path: DatabaseCertFile}, {Key: corev1.TLSPrivateKeyKey, Path: DatabaseKeyFile}}}},
		}}}})
	mount := corev1.VolumeMount{Name: VolumeDatabaseTLS, MountPath: DatabaseTLSDir, ReadOnly: true}
	for _, cs := range [][]corev1.Container{pod.InitContainers, pod.Containers} {
		for i := range cs {
			cs[i].VolumeMounts = append(cs[i].VolumeMounts, mount)
		}
	}
}
