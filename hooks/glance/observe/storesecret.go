package observe

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
)

// ObservedStoreSecret is what evaluate reads of a store Secret.
type ObservedStoreSecret struct {
	Glance                            string // the LabelGlance label
	StoreID, SpecHash, CABundleDigest string // the annotations
	Owners                            []metav1.OwnerReference
	Section                           string // the StoreSecretKey data, base64
}

// storeSecretKeys are the members of a store Secret evaluate checks: its
// LabelGlance label, its annotations and its StoreSecretKey data.
var storeSecretKeys = metacontroller.StringKeys{
	Labels:      []string{names.LabelGlance},
	Annotations: []string{names.AnnotationStoreID, names.AnnotationSpecHash, names.AnnotationCABundleDigest},
	Data:        []string{names.StoreSecretKey},
}

// ReadStoreSecret reads the named store Secret. Every attached backend has
// one, and its annotations hold Metacontroller's last-applied record, as
// long as the Secret: only the members evaluate checks are read
// (metacontroller's ReadStrings), with the answer and the error of
// decoding the Secret whole.
func ReadStoreSecret(related metacontroller.ObjectMap, name string) (sec ObservedStoreSecret, found bool, err error) {
	s, found, err := related.ReadStrings(names.SecretsKey, name, storeSecretKeys)
	if !found || err != nil {
		return sec, found, err
	}
	return ObservedStoreSecret{Glance: s.Labels[0], StoreID: s.Annotations[0], SpecHash: s.Annotations[1],
		CABundleDigest: s.Annotations[2], Owners: s.OwnerReferences, Section: s.Data[0]}, true, nil
}
