package observe

import (
	"encoding/base64"
	"encoding/json"
	"reflect"
	"testing"
	"unsafe"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
)

// storeSecret is a store Secret decoded whole, data still base64: what
// readStoreSecret stands for.
type storeSecret struct {
	Metadata struct {
		Labels          map[string]string       `json:"labels,omitempty"`
		Annotations     map[string]string       `json:"annotations,omitempty"`
		OwnerReferences []metav1.OwnerReference `json:"ownerReferences,omitempty"`
	} `json:"metadata"`
	Data map[string]string `json:"data"`
}

// TestReadStoreSecretAsDecodingWhole holds readStoreSecret to what decoding
// the whole storeSecret gives, the error included, for Secrets
// metacontroller's ReadStrings reads by picking members and for those it
// decodes whole (TestReadStringsAsDecodingWhole tells them apart).
func TestReadStoreSecretAsDecodingWhole(t *testing.T) {
	const meta = `"labels":{"` + names.LabelGlance + `":"glance","other":"x"},` +
		`"ownerReferences":[{"apiVersion":"v","kind":"GlanceBackend","name":"b","uid":"u","controller":true}]`
	cases := map[string]string{
		"Plain": `{"metadata":{` + meta + `,"annotations":{"` + names.AnnotationStoreID + `":"s","` + names.AnnotationSpecHash +
			`":"h","` + names.AnnotationCABundleDigest + `":"d","metacontroller.k8s.io/last-applied-configuration":"{\"a\":\"b\"}"}},` +
			`"data":{"` + names.StoreSecretKey + `":"W3NdCg=="}}`,
		"Nulls":          `{"metadata":{"labels":null,"annotations":null},"data":null}`,
		"NullValues":     `{"metadata":{"annotations":{"` + names.AnnotationStoreID + `":null}},"data":{"` + names.StoreSecretKey + `":null}}`,
		"Empty":          `{}`,
		"Twice":          `{"metadata":{"annotations":{"` + names.AnnotationStoreID + `":"a","` + names.AnnotationStoreID + `":"b"}}}`,
		"EscapedValue":   `{"metadata":{"annotations":{"` + names.AnnotationStoreID + `":"s\u0031"}}}`,
		"EscapedKey":     `{"metadata":{"annotations":{"glance.openstack.c5c3.io\/store-id":"s"}}}`,
		"FoldedField":    `{"Metadata":{"annotations":{"` + names.AnnotationStoreID + `":"s"}}}`,
		"CaseOfKey":      `{"metadata":{"annotations":{"GLANCE.openstack.c5c3.io/store-id":"s"}}}`,
		"NumberLabel":    `{"metadata":{"labels":{"other":1}}}`,
		"NumberData":     `{"data":{"other":1}}`,
		"ListAnnotation": `{"metadata":{"annotations":["x"]}}`,
		"BadOwner":       `{"metadata":{"ownerReferences":[{"controller":"yes"}]}}`,
	}
	for name, obj := range cases {
		t.Run(name, func(t *testing.T) {
			if !json.Valid([]byte(obj)) {
				t.Fatalf("not JSON: %s", obj)
			}
			related := metacontroller.ObjectMap{names.SecretsKey: {"x-store": json.RawMessage(obj)}}
			got, found, gotErr := ReadStoreSecret(related, "x-store")
			whole, _, wantErr := metacontroller.DecodeOne[storeSecret](related, names.SecretsKey, "x-store")
			if !found {
				t.Fatal("not found")
			}
			if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
				t.Fatalf("error %v, decoded whole %v", gotErr, wantErr)
			}
			if wantErr != nil {
				return
			}
			a := whole.Metadata.Annotations
			want := ObservedStoreSecret{Glance: whole.Metadata.Labels[names.LabelGlance], StoreID: a[names.AnnotationStoreID],
				SpecHash: a[names.AnnotationSpecHash], CABundleDigest: a[names.AnnotationCABundleDigest],
				Owners: whole.Metadata.OwnerReferences, Section: whole.Data[names.StoreSecretKey]}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("got %+v, decoded whole %+v", got, want)
			}
		})
	}
	if _, found, err := ReadStoreSecret(metacontroller.ObjectMap{}, "x-store"); found || err != nil {
		t.Errorf("an absent Secret: found %v, %v", found, err)
	}
}

// TestDecodeBase64AsDecodeString holds DecodeBase64 to standard base64's
// DecodeString as a string, the error included, and to strings of their
// own memory: decoding again gives a string that does not change the first.
func TestDecodeBase64AsDecodeString(t *testing.T) {
	cases := map[string]string{
		"Section":       "W3NdCnMzX3N0b3JlX2hvc3QgPSBodHRwOi8vaG9zdAo=",
		"Empty":         "",
		"LineBreaks":    "W3Nd\r\nCg==",
		"NoPadding":     "W3NdCg",
		"NotBase64":     "[s]",
		"BadAfterValid": "W3NdCg==W3Nd",
	}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			want, wantErr := base64.StdEncoding.DecodeString(in)
			got, err := DecodeBase64(in)
			if got != string(want) || (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
				t.Errorf("got %q, %v; DecodeString gives %q, %v", got, err, want, wantErr)
			}
			if again, _ := DecodeBase64(in); len(again) > 0 && unsafe.StringData(again) == unsafe.StringData(got) {
				t.Error("two decodings share memory")
			}
		})
	}
}
