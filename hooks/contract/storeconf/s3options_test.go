package storeconf

import (
	"reflect"
	"strings"
	"testing"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
)

// validS3 is a store spec every check accepts.
func validS3() api.GlanceBackendSpec {
	return api.GlanceBackendSpec{Type: api.BackendTypeS3, GlanceRef: api.LocalObjectReference{Name: "glance"},
		S3: &api.S3Store{Host: "https://s3.example.com", S3Options: api.S3Options{
			Bucket: "images", CredentialsSecretRef: api.LocalObjectReference{Name: "creds"}}}}
}

// notValidated are the S3Options fields no value of which is refused, and
// why; every other field must have a value SpecProblems refuses.
var notValidated = map[string]string{
	"CreateBucketOnPut": "a bool: both values are valid",
}

// notRendered are the S3Options fields that put no line of their own into
// the section, and why; every other field must change it.
var notRendered = map[string]string{
	"CredentialsSecretRef": "names the Secret the keys are read from; the keys, not the name, are rendered",
}

// TestEveryS3OptionIsRenderedAndValidated walks api.S3Options by reflection,
// so a field added there without its storeOptions line or its check in
// s3Problems fails here rather than being silently ignored.
func TestEveryS3OptionIsRenderedAndValidated(t *testing.T) {
	typ := reflect.TypeFor[api.S3Options]()
	base, err := RenderSection(validS3(), "store", Credentials{AccessKeyID: "a", SecretAccessKey: "s"})
	if err != nil {
		t.Fatal(err)
	}
	for i := range typ.NumField() {
		f := typ.Field(i)
		jsonName := strings.Split(f.Tag.Get("json"), ",")[0]
		t.Run(f.Name, func(t *testing.T) {
			if _, ok := notRendered[f.Name]; !ok {
				spec := validS3()
				setField(t, reflect.ValueOf(&spec.S3.S3Options).Elem().Field(i), false)
				got, err := RenderSection(spec, "store", Credentials{AccessKeyID: "a", SecretAccessKey: "s"})
				if err != nil || got == base {
					t.Errorf("s3.%s set to a valid value does not change the rendered section (err %v): add its storeOptions line", jsonName, err)
				}
			}
			if _, ok := notValidated[f.Name]; !ok {
				spec := validS3()
				setField(t, reflect.ValueOf(&spec.S3.S3Options).Elem().Field(i), true)
				problems := SpecProblems(spec, HostField)
				if !strings.Contains(problems.String(), "s3."+jsonName) {
					t.Errorf("s3.%s set to an invalid value is not refused at its path (got %q): add its check to s3Problems", jsonName, problems.String())
				}
			}
		})
	}
}

// setField sets v to a valid value other than the base spec's, or to one
// the checks must refuse.
func setField(t *testing.T, v reflect.Value, invalid bool) {
	t.Helper()
	switch p := v.Addr().Interface().(type) {
	case *string:
		*p = map[bool]string{false: "virtual", true: "a\nb"}[invalid]
	case **int64:
		n := map[bool]int64{false: 7, true: 0}[invalid]
		*p = &n
	case **bool:
		yes := true
		*p = &yes
	case *api.LocalObjectReference:
		p.Name = map[bool]string{false: "other", true: ""}[invalid]
	case **api.CABundleRef:
		*p = &api.CABundleRef{Name: "ca"}
		if invalid {
			(*p).Kind = "Pod"
		}
	default:
		t.Fatalf("no test value for a field of type %s: add one to setField", v.Type())
	}
}
