package decide

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/release"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
	"github.com/c5c3/glance-hooks/hooks/glance/observe"
)

func TestPlanSchema(t *testing.T) {
	const (
		old    = "glance:2025.2"
		patch  = "glance:2025.2-p1"
		next   = "glance:2026.1"
		slurp1 = "glance:2025.1"
	)
	r := func(s string) release.Release {
		rel, err := release.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		return rel
	}
	name := func(j observe.SchemaJob) string { return "j-" + string(j.Action) + "-" + j.Image }
	job := func(a observe.Action, image string, st observe.JobState) observe.ObservedJob {
		j := observe.SchemaJob{Action: a, Image: image}
		return observe.ObservedJob{Name: name(j), Job: j, State: st}
	}
	upgrade := func(phase string) *api.UpgradeStatus {
		return &api.UpgradeStatus{Phase: phase, TargetRelease: "2026.1", TargetImage: next}
	}
	type args struct {
		release          string
		image, tag       string
		installedRelease string
		installedImage   string
		upgrade          *api.UpgradeStatus
		lastUpgrade      *api.UpgradeEnd
		jobs             []observe.ObservedJob
		deployment       *Deployed
	}
	type want struct {
		run              string // image, "" for no Deployment
		runRelease       string
		job              string // planned Job's name, "" for none
		installedRelease string
		installedImage   string
		phase            string // upgrade phase, "" for none
		status           bool
		reason           string
		lastUpgrade      string // ended, "" for none
	}
	// An upgrade that ended in an earlier sync, with its transition.
	endedBefore := &api.UpgradeEnd{Result: api.UpgradeComplete, FromRelease: "2025.1", ToRelease: "2025.2",
		EndedAt: metav1.NewTime(time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC))}
	cases := map[string]struct {
		reason string
		args   args
		want   want
	}{
		"FirstInstall": {
			reason: "nothing is installed: a db sync Job runs and no Deployment exists until it succeeded",
			args:   args{release: "2025.2", image: old, tag: "2025.2"},
			want:   want{job: "j-sync-" + old, reason: model.ReasonDBSyncInProgress},
		},
		"FirstInstallSynced": {
			reason: "the first db sync succeeded: the release and image are installed and glance-api runs",
			args:   args{release: "2025.2", image: old, tag: "2025.2", jobs: []observe.ObservedJob{job(observe.ActionSync, old, observe.JobSucceeded)}},
			want: want{run: old, runRelease: "2025.2", job: "j-sync-" + old, installedRelease: "2025.2", installedImage: old,
				status: true, reason: model.ReasonDatabaseSynced},
		},
		"FirstInstallFailed": {
			reason: "a failed first db sync is reported, naming its Job; still no Deployment",
			args:   args{release: "2025.2", image: old, tag: "2025.2", jobs: []observe.ObservedJob{job(observe.ActionSync, old, observe.JobFailed)}},
			want:   want{job: "j-sync-" + old, reason: model.ReasonDBSyncFailed},
		},
		"AdoptedDeployment": {
			reason: "a Deployment made before the schema Jobs existed keeps running while the first db sync runs",
			args:   args{release: "2025.2", image: old, tag: "2025.2", deployment: &Deployed{Image: old, RolledOut: true}},
			want:   want{run: old, runRelease: "2025.2", job: "j-sync-" + old, reason: model.ReasonDBSyncInProgress},
		},
		"Steady": {
			reason: "the installed image is the spec's: no Job is due",
			args:   args{release: "2025.2", image: old, tag: "2025.2", installedRelease: "2025.2", installedImage: old},
			want: want{run: old, runRelease: "2025.2", installedRelease: "2025.2", installedImage: old,
				status: true, reason: model.ReasonDatabaseSynced},
		},
		"PatchBump": {
			reason: "a new image of the installed release is a db sync; glance-api keeps the old image until it succeeded",
			args:   args{release: "2025.2", image: patch, tag: "2025.2-p1", installedRelease: "2025.2", installedImage: old},
			want: want{run: old, runRelease: "2025.2", job: "j-sync-" + patch, installedRelease: "2025.2", installedImage: old,
				reason: model.ReasonDBSyncInProgress},
		},
		"PatchBumpSynced": {
			reason: "once the patch's db sync succeeded glance-api rolls to it",
			args: args{release: "2025.2", image: patch, tag: "2025.2-p1", installedRelease: "2025.2", installedImage: old,
				jobs: []observe.ObservedJob{job(observe.ActionSync, patch, observe.JobSucceeded)}},
			want: want{run: patch, runRelease: "2025.2", job: "j-sync-" + patch, installedRelease: "2025.2", installedImage: patch,
				status: true, reason: model.ReasonDatabaseSynced},
		},
		"UpgradeStarts": {
			reason: "the next release starts an upgrade with db expand; glance-api keeps the installed image",
			args:   args{release: "2026.1", image: next, tag: "2026.1", installedRelease: "2025.2", installedImage: old},
			want: want{run: old, runRelease: "2025.2", job: "j-expand-" + next, installedRelease: "2025.2", installedImage: old,
				phase: api.PhaseExpanding, reason: model.ReasonExpandInProgress},
		},
		"ExpandedMigrates": {
			reason: "expand succeeded: migrate runs, still on the installed image",
			args: args{release: "2026.1", image: next, tag: "2026.1", installedRelease: "2025.2", installedImage: old,
				upgrade: upgrade(api.PhaseExpanding), jobs: []observe.ObservedJob{job(observe.ActionExpand, next, observe.JobSucceeded)}},
			want: want{run: old, runRelease: "2025.2", job: "j-migrate-" + next, installedRelease: "2025.2", installedImage: old,
				phase: api.PhaseMigrating, reason: model.ReasonMigrateInProgress},
		},
		"MigratedRolls": {
			reason: "migrate succeeded: glance-api rolls to the new release's image, in its launch mode",
			args: args{release: "2026.1", image: next, tag: "2026.1", installedRelease: "2025.2", installedImage: old,
				upgrade: upgrade(api.PhaseMigrating), jobs: []observe.ObservedJob{job(observe.ActionExpand, next, observe.JobSucceeded), job(observe.ActionMigrate, next, observe.JobSucceeded)},
				deployment: &Deployed{Image: old, RolledOut: true}},
			want: want{run: next, runRelease: "2026.1", installedRelease: "2025.2", installedImage: old,
				phase: api.PhaseRollingUpdate, reason: model.ReasonUpgradeRollingUpdate},
		},
		"RollingWaits": {
			reason: "contract waits until every pod runs the new image",
			args: args{release: "2026.1", image: next, tag: "2026.1", installedRelease: "2025.2", installedImage: old,
				upgrade: upgrade(api.PhaseRollingUpdate), deployment: &Deployed{Image: next, RolledOut: false}},
			want: want{run: next, runRelease: "2026.1", installedRelease: "2025.2", installedImage: old,
				phase: api.PhaseRollingUpdate, reason: model.ReasonUpgradeRollingUpdate},
		},
		"RolledOutContracts": {
			reason: "once rolled out, contract runs",
			args: args{release: "2026.1", image: next, tag: "2026.1", installedRelease: "2025.2", installedImage: old,
				upgrade: upgrade(api.PhaseRollingUpdate), deployment: &Deployed{Image: next, RolledOut: true}},
			want: want{run: next, runRelease: "2026.1", job: "j-contract-" + next, installedRelease: "2025.2", installedImage: old,
				phase: api.PhaseContracting, reason: model.ReasonContractInProgress},
		},
		"Contracted": {
			reason: "contract succeeded: the new release is installed and the upgrade is over",
			args: args{release: "2026.1", image: next, tag: "2026.1", installedRelease: "2025.2", installedImage: old,
				upgrade: upgrade(api.PhaseContracting), jobs: []observe.ObservedJob{job(observe.ActionContract, next, observe.JobSucceeded)},
				deployment: &Deployed{Image: next, RolledOut: true}},
			want: want{run: next, runRelease: "2026.1", job: "j-contract-" + next, installedRelease: "2026.1", installedImage: next,
				status: true, reason: model.ReasonDatabaseSynced, lastUpgrade: "Complete 2025.2 → 2026.1, ended now"},
		},
		"MigrateFailed": {
			reason: "a failed step stops the walk, names its Job, and glance-api keeps the installed image",
			args: args{release: "2026.1", image: next, tag: "2026.1", installedRelease: "2025.2", installedImage: old,
				upgrade: upgrade(api.PhaseMigrating), jobs: []observe.ObservedJob{job(observe.ActionMigrate, next, observe.JobFailed)}},
			want: want{run: old, runRelease: "2025.2", job: "j-migrate-" + next, installedRelease: "2025.2", installedImage: old,
				phase: api.PhaseMigrating, reason: model.ReasonMigrateFailed},
		},
		"Slurp": {
			reason: "a SLURP release upgrades straight to the next SLURP release",
			args:   args{release: "2026.1", image: next, tag: "2026.1", installedRelease: "2025.1", installedImage: slurp1},
			want: want{run: slurp1, runRelease: "2025.1", job: "j-expand-" + next, installedRelease: "2025.1", installedImage: slurp1,
				phase: api.PhaseExpanding, reason: model.ReasonExpandInProgress},
		},
		"Downgrade": {
			reason: "an older release is refused; glance-api keeps running the installed one",
			args:   args{release: "2025.2", image: old, tag: "2025.2", installedRelease: "2026.1", installedImage: next},
			want: want{run: next, runRelease: "2026.1", installedRelease: "2026.1", installedImage: next,
				reason: model.ReasonDowngradeNotSupported},
		},
		"Skip": {
			reason: "a release further than the next is refused",
			args:   args{release: "2026.2", image: "glance:2026.2", tag: "2026.2", installedRelease: "2025.2", installedImage: old},
			want: want{run: old, runRelease: "2025.2", installedRelease: "2025.2", installedImage: old,
				reason: model.ReasonUpgradePathInvalid},
		},
		"TagOfAnotherRelease": {
			reason: "an image naming another release is never run, not even its schema Job",
			args:   args{release: "2025.2", image: next, tag: "2026.1", installedRelease: "2025.2", installedImage: old},
			want: want{run: old, runRelease: "2025.2", installedRelease: "2025.2", installedImage: old,
				reason: model.ReasonImageReleaseMismatch},
		},
		"TagOfAnotherReleaseFirstInstall": {
			reason: "on first install nothing is created for an image naming another release",
			args:   args{release: "2025.2", image: next, tag: "2026.1"},
			want:   want{reason: model.ReasonImageReleaseMismatch},
		},
		"TargetChanged": {
			reason: "a third release during an upgrade is held: nothing moves until the spec goes back",
			args: args{release: "2026.2", image: "glance:2026.2", tag: "2026.2", installedRelease: "2025.2", installedImage: old,
				upgrade: upgrade(api.PhaseRollingUpdate)},
			want: want{run: next, runRelease: "2026.1", installedRelease: "2025.2", installedImage: old,
				phase: api.PhaseRollingUpdate, reason: model.ReasonUpgradeTargetChanged},
		},
		"Abandoned": {
			reason: "going back to the installed release before contract abandons the upgrade; the old image runs again",
			args: args{release: "2025.2", image: old, tag: "2025.2", installedRelease: "2025.2", installedImage: old,
				upgrade: upgrade(api.PhaseRollingUpdate), lastUpgrade: endedBefore},
			want: want{run: old, runRelease: "2025.2", installedRelease: "2025.2", installedImage: old,
				status: true, reason: model.ReasonDatabaseSynced, lastUpgrade: "Aborted 2025.2 → 2026.1, ended now"},
		},
		"SteadyAfterAnUpgrade": {
			reason: "an upgrade that ended before is kept as it is, with its own transition",
			args: args{release: "2025.2", image: old, tag: "2025.2", installedRelease: "2025.2", installedImage: old,
				lastUpgrade: endedBefore},
			want: want{run: old, runRelease: "2025.2", installedRelease: "2025.2", installedImage: old,
				status: true, reason: model.ReasonDatabaseSynced, lastUpgrade: "Complete 2025.1 → 2025.2, ended 2026-01-01T10:00:00Z"},
		},
		"PatchBumpAfterAnUpgrade": {
			reason: "a patch bump's sync is no upgrade's end: the last one is kept with its transition",
			args: args{release: "2025.2", image: patch, tag: "2025.2-p1", installedRelease: "2025.2", installedImage: old,
				lastUpgrade: endedBefore, jobs: []observe.ObservedJob{job(observe.ActionSync, patch, observe.JobSucceeded)}},
			want: want{run: patch, runRelease: "2025.2", job: "j-sync-" + patch, installedRelease: "2025.2", installedImage: patch,
				status: true, reason: model.ReasonDatabaseSynced, lastUpgrade: "Complete 2025.1 → 2025.2, ended 2026-01-01T10:00:00Z"},
		},
		"NoAbandonWhileContracting": {
			reason: "once contract has started the old release cannot run again",
			args: args{release: "2025.2", image: old, tag: "2025.2", installedRelease: "2025.2", installedImage: old,
				upgrade: upgrade(api.PhaseContracting)},
			want: want{run: next, runRelease: "2026.1", installedRelease: "2025.2", installedImage: old,
				phase: api.PhaseContracting, reason: model.ReasonUpgradeTargetChanged},
		},
		"OneJobAtATime": {
			reason: "a Job still running for an earlier spec is let finish before the next one starts",
			args: args{release: "2025.2", image: patch, tag: "2025.2-p1", installedRelease: "2025.2", installedImage: old,
				jobs: []observe.ObservedJob{job(observe.ActionSync, "glance:2025.2-p0", observe.JobRunning)}},
			want: want{run: old, runRelease: "2025.2", installedRelease: "2025.2", installedImage: old, reason: model.ReasonDBSyncInProgress},
		},
		"UnreadableStatus": {
			reason: "an installed release this hook did not write counts as none: db sync is safe on any schema",
			args:   args{release: "2025.2", image: old, tag: "2025.2", installedRelease: "zed", installedImage: old},
			want:   want{job: "j-sync-" + old, reason: model.ReasonDBSyncInProgress},
		},
	}
	for n, tc := range cases {
		t.Run(n, func(t *testing.T) {
			in := SchemaInputs{Release: r(tc.args.release), Image: tc.args.image, Tag: tc.args.tag,
				InstalledRelease: tc.args.installedRelease, InstalledImage: tc.args.installedImage, Upgrade: tc.args.upgrade,
				LastUpgrade: tc.args.lastUpgrade, Jobs: tc.args.jobs, Deployment: tc.args.deployment, JobName: name, Namespace: "openstack"}
			p := PlanSchema(in)
			got := want{installedRelease: p.InstalledRelease, installedImage: p.InstalledImage,
				status: p.Cond.Status, reason: p.Cond.Reason}
			if p.Run != nil {
				got.run, got.runRelease = p.Run.Image, p.Run.Release.String()
			}
			if p.Job != nil {
				got.job = name(*p.Job)
			}
			if p.Upgrade != nil {
				got.phase = p.Upgrade.Phase
			}
			if e := p.LastUpgrade; e != nil {
				at := "now" // stamped by the report, with DatabaseReady's transition
				if !e.EndedAt.IsZero() {
					at = e.EndedAt.UTC().Format(time.RFC3339)
				}
				got.lastUpgrade = e.Result + " " + e.FromRelease + " → " + e.ToRelease + ", ended " + at
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nplanSchema(...): -want, +got:\n%s\n(message: %s)", tc.reason, diff, p.Cond.Message)
			}
			if p.Cond.Type != model.CondDatabaseReady || p.Cond.Message == "" {
				t.Errorf("%s\nthe condition is DatabaseReady with a message, got %+v", tc.reason, p.Cond)
			}
		})
	}
}
