package glance

import (
	"testing"

	"github.com/c5c3/glance-hooks/hooks/contract/glancestatus"
	"github.com/c5c3/glance-hooks/hooks/glance/report"
)

// TestReadinessAsTheContractSays: the ControlPlane tells a Glance on its
// way from one at fault through glancestatus.Progressing, which knows the
// conditions a Glance's Ready does not wait for; every condition this
// hook reports is classified there as the registry here reports it.
func TestReadinessAsTheContractSays(t *testing.T) {
	checked := 0
	for _, feature := range features {
		for _, f := range feature.status {
			checked++
			if beside := f.Ready == report.BesideReady; beside != glancestatus.BesideReady(f.CondType) {
				t.Errorf("feature %s reports %s beside Ready: %t here, %t in glancestatus", feature.name, f.CondType, beside, !beside)
			}
		}
	}
	if checked < 10 {
		t.Fatalf("read %d conditions from the feature registry; expected every one the Glance reports", checked)
	}
}
