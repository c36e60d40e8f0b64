package model

import (
	"errors"
	"fmt"
	"testing"

	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/release"
)

func TestSpecError(t *testing.T) {
	_, cause := release.Parse("2025.x")
	cases := map[string]struct {
		reason string
		err    error
		spec   bool
		msg    string
	}{
		"Spec": {"a spec value is a spec error, its message as written", InvalidSpec("spec.database needs exactly one of clusterRef and host"),
			true, "spec.database needs exactly one of clusterRef and host"},
		"Wrapped": {"wrapping keeps it a spec error", fmt.Errorf("rendering: %w", InvalidSpec("spec.cache: exactly one of clusterRef or servers must be set")),
			true, "rendering: spec.cache: exactly one of clusterRef or servers must be set"},
		"Input": {"an input error is not a spec error", hook.Invalid("observed Job %q", "j"), false, `observed Job "j"`},
		"Plain": {"an error of no type is not a spec error", errors.New("boom"), false, "boom"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := IsSpecError(tc.err); got != tc.spec || tc.err.Error() != tc.msg {
				t.Errorf("%s: isSpecError %t, message %q", tc.reason, got, tc.err.Error())
			}
		})
	}
	if err := InvalidSpec("spec.openStackRelease: %w", cause); !errors.Is(err, cause) {
		t.Errorf("the cause is not reachable through Unwrap: %v", err)
	}
}
