package glance

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
)

// observedStoreSecret is what evaluate reads of a store Secret.
type observedStoreSecret struct {
	glance                            string // the LabelGlance label
	storeID, specHash, caBundleDigest string // the annotations
	owners                            []metav1.OwnerReference
	section                           string // the StoreSecretKey data, base64
}

// storeSecretKeys are the members of a store Secret evaluate checks: its
// LabelGlance label, its annotations and its StoreSecretKey data.
var storeSecretKeys = metacontroller.StringKeys{
	Labels:      []string{names.LabelGlance},
	Annotations: []string{names.AnnotationStoreID, names.AnnotationSpecHash, names.AnnotationCABundleDigest},
	Data:        []string{names.StoreSecretKey},
}

// readStoreSecret reads the named store Secret. Every attached backend has
// one, and its annotations hold Metacontroller's last-applied record, as
// long as the Secret: only the members evaluate checks are read
// (metacontroller's ReadStrings), with the answer and the error of
// decoding the Secret whole.
func readStoreSecret(related metacontroller.ObjectMap, name string) (sec observedStoreSecret, found bool, err error) {
	s, found, err := related.ReadStrings(names.SecretsKey, name, storeSecretKeys)
	if !found || err != nil {
		return sec, found, err
	}
	return observedStoreSecret{glance: s.Labels[0], storeID: s.Annotations[0], specHash: s.Annotations[1],
		caBundleDigest: s.Annotations[2], owners: s.OwnerReferences, section: s.Data[0]}, true, nil
}
