package glancebackend

import (
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"strings"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/excerpt"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
)

// subjectsShown is how many certificate subjects the condition names; a
// trust bundle with the public roots holds over a hundred.
const subjectsShown = 3

// rawConfigMap is a ConfigMap's data: text keys, and binary keys still
// base64.
type rawConfigMap struct {
	Data       map[string]string `json:"data"`
	BinaryData map[string]string `json:"binaryData"`
}

// checkCABundle reads the CA bundle a store names, when it names one: the
// key of the ConfigMap or Secret must hold PEM certificates and nothing
// else (never a private key: the key is mounted into every glance-api pod).
// The digest is SHA-256 of the key's bytes, as the pods will read them. The
// message names the object, the key and the subjects of the first
// certificates, so a wrong CA can be told from the condition.
func checkCABundle(related metacontroller.ObjectMap, s3 *api.S3Store) (hook.Condition, string, error) {
	c := hook.Condition{Type: CondCABundleReady, Reason: ReasonWaitingForCABundle}
	if s3 == nil || s3.CABundleRef == nil {
		c.Status, c.Reason = true, ReasonNoCABundle
		c.Message = "no CA bundle is named: glance-api verifies the endpoint with the system trust roots"
		return c, "", nil
	}
	ref := *s3.CABundleRef
	kind, key := ref.EffectiveKind(), ref.EffectiveKey()
	what := fmt.Sprintf("%s %q", kind, ref.Name)
	bundle, state, err := bundleBytes(related, kind, ref.Name, key)
	switch {
	case err != nil:
		return c, "", err
	case state == absent:
		c.Message = what + " not found"
		return c, "", nil
	case state == noKey:
		c.Message = fmt.Sprintf("%s has no %s key", what, key)
		return c, "", nil
	case state == undecodable:
		c.Reason = ReasonInvalidCABundle
		c.Message = fmt.Sprintf("%s key %s is not valid base64", what, key)
		return c, "", nil
	case len(bundle) == 0:
		c.Message = fmt.Sprintf("%s key %s is empty", what, key)
		return c, "", nil
	}
	subjects, problem := certificates(bundle)
	if problem != "" {
		c.Reason = ReasonInvalidCABundle
		c.Message = fmt.Sprintf("%s key %s %s", what, key, problem)
		return c, "", nil
	}
	shown := subjects[:min(len(subjects), subjectsShown)]
	list := strings.Join(shown, ", ")
	if more := len(subjects) - len(shown); more > 0 {
		list += fmt.Sprintf(" and %d more", more)
	}
	sum := sha256.Sum256(bundle)
	c.Status, c.Reason = true, ReasonCABundleAvailable
	c.Message = fmt.Sprintf("%s key %s holds %s: %s", what, key, hook.Plural(len(subjects), "certificate", "certificates"), list)
	return c, "sha256:" + hex.EncodeToString(sum[:]), nil
}

// What bundleBytes found.
const (
	present = iota
	absent
	noKey
	undecodable
)

// bundleBytes reads one key of a related ConfigMap (data, or binaryData
// still base64) or Secret (base64).
func bundleBytes(related metacontroller.ObjectMap, kind, name, key string) ([]byte, int, error) {
	var text, encoded map[string]string
	if kind == api.CABundleKindSecret {
		sec, found, err := metacontroller.DecodeOne[rawSecret](related, names.SecretsKey, name)
		if err != nil || !found {
			return nil, absent, relatedError(err)
		}
		encoded = sec.Data
	} else {
		cm, found, err := metacontroller.DecodeOne[rawConfigMap](related, names.ConfigMapsKey, name)
		if err != nil || !found {
			return nil, absent, relatedError(err)
		}
		text, encoded = cm.Data, cm.BinaryData
	}
	if v, ok := text[key]; ok {
		return []byte(v), present, nil
	}
	enc, ok := encoded[key]
	if !ok {
		return nil, noKey, nil
	}
	b, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		return nil, undecodable, nil
	}
	return b, present, nil
}

func relatedError(err error) error {
	if err != nil {
		return hook.Invalid("related %v", err)
	}
	return nil
}

// certificates returns the subjects of the certificates in a PEM bundle,
// or why it is not a CA bundle. Text outside PEM blocks is allowed (bundles
// often carry a comment per certificate), as OpenSSL, which glance-api's
// TLS goes through, skips it too.
func certificates(bundle []byte) ([]string, string) {
	var subjects []string
	rest := bundle
	for n := 1; ; n++ {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		switch {
		case strings.Contains(block.Type, "PRIVATE KEY"):
			return nil, fmt.Sprintf("holds a private key (PEM block %d): a CA bundle holds certificates only, and it is mounted into every glance-api pod", n)
		case block.Type != "CERTIFICATE":
			return nil, fmt.Sprintf("holds a PEM block %d of type %s, not CERTIFICATE", n, excerpt.Kind(block.Type))
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Sprintf("holds a PEM block %d that is not a valid X.509 certificate", n)
		}
		subjects = append(subjects, excerpt.Quote(cert.Subject.String(), 128))
	}
	if len(subjects) == 0 {
		return nil, "holds no PEM certificate (-----BEGIN CERTIFICATE-----)"
	}
	return subjects, ""
}
