package glance

import (
	"errors"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/contract/rawjson"
)

// storeSecret is a store Secret as observed, data still base64: the
// metadata a store Secret is checked by, and nothing else. Every attached
// backend has one, and the rest of its metadata (a last-applied record as
// long as the data, managed fields) would cost as much to decode as the data
// and is never read.
type storeSecret struct {
	Metadata struct {
		Labels          map[string]string       `json:"labels,omitempty"`
		Annotations     map[string]string       `json:"annotations,omitempty"`
		OwnerReferences []metav1.OwnerReference `json:"ownerReferences,omitempty"`
	} `json:"metadata"`
	Data map[string]string `json:"data"`
}

// observedStoreSecret is what evaluate reads of a store Secret.
type observedStoreSecret struct {
	glance                            string // the LabelGlance label
	storeID, specHash, caBundleDigest string // the annotations
	owners                            []metav1.OwnerReference
	section                           string // the StoreSecretKey data, base64
}

// readStoreSecret reads the named store Secret. The annotations hold
// Metacontroller's last-applied record, as long as the Secret and full of
// escapes, and every attached backend has a store Secret: the labels,
// annotations and data are read for the members evaluate checks only
// (pickedStoreSecret). Where that cannot tell what encoding/json would
// make of the Secret, it is decoded whole as before, with the same
// answer and the same error.
func readStoreSecret(related metacontroller.ObjectMap, name string) (sec observedStoreSecret, found bool, err error) {
	raw, found := related.Get(names.SecretsKey, name)
	if !found {
		return sec, false, nil
	}
	var p pickedStoreSecret
	if rawjson.Decode(raw, &p) {
		m := &p.Metadata
		return observedStoreSecret{glance: m.Labels.glance, storeID: m.Annotations.storeID, specHash: m.Annotations.specHash,
			caBundleDigest: m.Annotations.caBundleDigest, owners: m.OwnerReferences, section: p.Data.section}, true, nil
	}
	whole, _, err := metacontroller.DecodeOne[storeSecret](related, names.SecretsKey, name)
	if err != nil {
		return sec, true, err
	}
	a := whole.Metadata.Annotations
	return observedStoreSecret{glance: whole.Metadata.Labels[names.LabelGlance], storeID: a[names.AnnotationStoreID],
		specHash: a[names.AnnotationSpecHash], caBundleDigest: a[names.AnnotationCABundleDigest],
		owners: whole.Metadata.OwnerReferences, section: whole.Data[names.StoreSecretKey]}, true, nil
}

// pickedStoreSecret is storeSecret with each map read for the members
// evaluate checks. It is decoded with rawjson.Decode only, never with
// encoding/json: each picked map fails where rawjson.PickStrings cannot
// answer, and readStoreSecret then decodes a storeSecret instead.
type pickedStoreSecret struct {
	Metadata struct {
		Labels          storeLabels             `json:"labels,omitempty"`
		Annotations     storeAnnotations        `json:"annotations,omitempty"`
		OwnerReferences []metav1.OwnerReference `json:"ownerReferences,omitempty"`
	} `json:"metadata"`
	Data storeData `json:"data"`
}

var errUnsure = errors.New("decode the map whole")

// pick sets each of into to the member of obj named by the key of the same
// index, or fails with errUnsure.
func pick(obj []byte, keys []string, into ...*string) error {
	v, ok := rawjson.PickStrings(obj, keys...)
	if !ok {
		return errUnsure
	}
	for i, dst := range into {
		*dst = v[i]
	}
	return nil
}

var (
	storeLabelKeys      = []string{names.LabelGlance}
	storeAnnotationKeys = []string{names.AnnotationStoreID, names.AnnotationSpecHash, names.AnnotationCABundleDigest}
	storeDataKeys       = []string{names.StoreSecretKey}
)

type storeLabels struct{ glance string }

func (l *storeLabels) UnmarshalJSON(obj []byte) error { return pick(obj, storeLabelKeys, &l.glance) }

type storeAnnotations struct{ storeID, specHash, caBundleDigest string }

func (a *storeAnnotations) UnmarshalJSON(obj []byte) error {
	return pick(obj, storeAnnotationKeys, &a.storeID, &a.specHash, &a.caBundleDigest)
}

type storeData struct{ section string }

func (d *storeData) UnmarshalJSON(obj []byte) error { return pick(obj, storeDataKeys, &d.section) }
