package rawjson

import (
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// sameTimeAsStd decodes the JSON value v as a metav1.Time with Unmarshal
// and with metav1.Time's own UnmarshalJSON, and fails unless the times (the
// zone included) and the errors are the same; it returns whether the fast
// form read it.
func sameTimeAsStd(t *testing.T, v string) bool {
	t.Helper()
	type holder struct {
		T metav1.Time `json:"t"`
	}
	var got holder
	gotErr := Unmarshal([]byte(`{"t":`+v+`}`), &got)
	var want metav1.Time
	wantErr := want.UnmarshalJSON([]byte(v))
	if (gotErr == nil) != (wantErr == nil) {
		t.Fatalf("%s: error %v, UnmarshalJSON %v", v, gotErr, wantErr)
	}
	if wantErr == nil && !reflect.DeepEqual(got.T, want) {
		t.Fatalf("%s: got %#v, want %#v", v, got.T, want)
	}
	_, fast := utcSeconds([]byte(v), 0)
	return fast
}

func TestMetaTimeAsUnmarshalJSON(t *testing.T) {
	cases := map[string]bool{
		`"2026-01-01T00:00:00Z"`:      true,
		`"2024-02-29T23:59:59Z"`:      true,
		`"0000-01-01T00:00:00Z"`:      true,
		`"9999-12-31T23:59:59Z"`:      true,
		`"2025-02-29T00:00:00Z"`:      false, // not a leap year
		`"1900-02-29T00:00:00Z"`:      false, // a century, not a leap year
		`"2000-02-29T00:00:00Z"`:      true,  // every 400 years a leap year
		`"0000-02-29T00:00:00Z"`:      true,
		`"2026-06-31T00:00:00Z"`:      false,
		`"2026-12-31T00:00:00Z"`:      true,
		`"2026-04-31T00:00:00Z"`:      false,
		`"2026-13-01T00:00:00Z"`:      false,
		`"2026-00-01T00:00:00Z"`:      false,
		`"2026-01-00T00:00:00Z"`:      false,
		`"2026-01-01T24:00:00Z"`:      false,
		`"2026-01-01T00:60:00Z"`:      false,
		`"2026-01-01T00:00:60Z"`:      false,
		`"2026-01-01t00:00:00Z"`:      false,
		`"2026-01-01T00:00:00z"`:      false,
		`"2026-01-01T00:00:00.5Z"`:    false,
		`"2026-01-01T00:00:00+02:00"`: false,
		`"2026-01-01 00:00:00Z"`:      false,
		`"2026-1-01T00:00:00Z"`:       false,
		`"2026-01-01T00:00:0\u0030Z"`: false,
		`"yesterday"`:                 false,
		`null`:                        false,
		`""`:                          false,
	}
	for v, fast := range cases {
		if got := sameTimeAsStd(t, v); got != fast {
			t.Errorf("%s read in the fast form: %v, want %v", v, got, fast)
		}
	}
}

// FuzzMetaTime holds the fast form to metav1.Time's UnmarshalJSON.
func FuzzMetaTime(f *testing.F) {
	for _, s := range []string{"2026-01-01T00:00:00Z", "2024-02-29T12:34:56Z", "1999-12-31T23:59:60Z", "2026-01-01T00:00:00.5Z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sameTimeAsStd(t, `"`+s+`"`)
	})
}
