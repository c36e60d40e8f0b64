package problem

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestString(t *testing.T) {
	bucket := field.NewPath("s3", "bucket")
	cases := map[string]struct {
		reason string
		p      Problem
		want   string
	}{
		"Invalid": {
			reason: "a problem said of a field reads after it",
			p:      Invalid(bucket, "must be %s", "set"),
			want:   "s3.bucket must be set",
		},
		"Required": {
			reason: "Required is the common case of Invalid",
			p:      Required(bucket),
			want:   "s3.bucket is required",
		},
		"At": {
			reason: "a clause of its own follows the field and a colon",
			p:      At(field.NewPath("backends").Index(1), "duplicate entry name %q", "default"),
			want:   `backends[1]: duplicate entry name "default"`,
		},
		"New": {
			reason: "a problem that names its own subject has no field",
			p:      New("exactly one backends entry must set isDefault (found %d)", 2),
			want:   "exactly one backends entry must set isDefault (found 2)",
		},
		"NotSupported": {
			reason: "a value outside an enum is said as Kubernetes says it, without the value",
			p:      NotSupported(field.NewPath("logging", "format"), "text", "json"),
			want:   `logging.format: Unsupported value: supported values: "text", "json"`,
		},
		"Key": {
			reason: "map keys are written as apimachinery writes them",
			p:      Invalid(field.NewPath("extraOptions").Key("k"), "contains a newline"),
			want:   "extraOptions[k] contains a newline",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := tc.p.String(); got != tc.want {
				t.Errorf("%s\nString() = %q, want %q", tc.reason, got, tc.want)
			}
		})
	}
}

func TestWrap(t *testing.T) {
	found := List{
		Required(field.NewPath("s3", "bucket")),
		At(field.NewPath("extraOptions"), "option name %q is not valid", "x]"),
		Invalid(field.NewPath("extraOptions").Key("k"), "contains a newline"),
		New("store id %q is reserved", "DEFAULT"),
	}
	cases := map[string]struct {
		reason string
		root   *field.Path
		want   []string
	}{
		"GlanceBackend": {
			reason: "problems of a spec, mounted at spec",
			root:   field.NewPath("spec"),
			want: []string{
				"spec.s3.bucket is required",
				`spec.extraOptions: option name "x]" is not valid`,
				"spec.extraOptions[k] contains a newline",
				`store id "DEFAULT" is reserved`,
			},
		},
		"ControlPlaneEntry": {
			reason: "the same problems, mounted at an entry of a list; a problem without a field stays as it is",
			root:   field.NewPath("spec", "services", "glance", "backends").Index(1),
			want: []string{
				"spec.services.glance.backends[1].s3.bucket is required",
				`spec.services.glance.backends[1].extraOptions: option name "x]" is not valid`,
				"spec.services.glance.backends[1].extraOptions[k] contains a newline",
				`store id "DEFAULT" is reserved`,
			},
		},
		"Nil": {
			reason: "no root leaves the paths relative",
			want: []string{
				"s3.bucket is required",
				`extraOptions: option name "x]" is not valid`,
				"extraOptions[k] contains a newline",
				`store id "DEFAULT" is reserved`,
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got []string
			for _, p := range Wrap(tc.root, found) {
				got = append(got, p.String())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nWrap(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
	if got := found[0].String(); got != "s3.bucket is required" {
		t.Errorf("Wrap must not change the list it is given; its first problem now reads %q", got)
	}
}

func TestListString(t *testing.T) {
	l := List{Required(field.NewPath("a")), New("b is wrong")}
	if got, want := l.String(), "a is required; b is wrong"; got != want {
		t.Errorf("List.String() = %q, want %q: problems are joined with \"; \" in order", got, want)
	}
}

// TestKey: a hand-written map key is written into the path as it is,
// unless it holds a character no message may carry; then it is escaped.
func TestKey(t *testing.T) {
	at := field.NewPath("logging", "perLoggerLevels")
	cases := map[string]struct {
		reason string
		key    string
		want   string
	}{
		"Plain":   {"a key as written", "sqlalchemy.engine", "logging.perLoggerLevels[sqlalchemy.engine]"},
		"Newline": {"a newline would break the message's line", "a\nb", `logging.perLoggerLevels[a\nb]`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := Key(at, tc.key).String(); got != tc.want {
				t.Errorf("%s\nKey(%q) = %q, want %q", tc.reason, tc.key, got, tc.want)
			}
		})
	}
}
