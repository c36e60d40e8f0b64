// Package decide is the Glance hook's second stage: pure functions from
// what observe decoded to what a sync does, each with a table test, none
// changing what it reads.
package decide

import (
	"fmt"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/excerpt"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/release"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
	"github.com/c5c3/glance-hooks/hooks/glance/observe"
)

// Deployed is the observed Deployment as the schema steps read it.
type Deployed struct {
	Image     string
	RolledOut bool
}

// SchemaInputs is what the schema decision reads.
type SchemaInputs struct {
	// Release and image are what the spec asks for, tag the image's tag.
	Release release.Release
	Image   string
	Tag     string
	// status is the Glance's observed status: what is installed and the
	// upgrade in progress.
	InstalledRelease, InstalledImage string
	Upgrade                          *api.UpgradeStatus
	LastUpgrade                      *api.UpgradeEnd
	Jobs                             []observe.ObservedJob
	Deployment                       *Deployed
	// JobName names the Job of a step.
	JobName func(observe.SchemaJob) string
	// Namespace is for the kubectl commands messages show.
	Namespace string
}

// RunTarget is what the glance-api Deployment runs.
type RunTarget struct {
	Image   string
	Release release.Release
}

// SchemaPlan is the schema decision.
type SchemaPlan struct {
	// Run is what the Deployment runs; nil while no release's schema is
	// ready (first install) and nothing ran before.
	Run *RunTarget
	// Job is the Job of the current step, returned whether it ran already
	// or not; nil when no step is due.
	Job *observe.SchemaJob
	// InstalledRelease, installedImage, upgrade and lastUpgrade are the
	// new status; a lastUpgrade ended in this sync has no EndedAt yet (it
	// is DatabaseReady's transition, which the report stamps).
	InstalledRelease, InstalledImage string
	Upgrade                          *api.UpgradeStatus
	LastUpgrade                      *api.UpgradeEnd
	Cond                             hook.Condition
}

// PlanSchema decides which schema Job runs and what glance-api may run. No
// pod ever runs an image whose schema work has not succeeded: a new
// release's image only after its expand and migrate Jobs, a new image of
// the same release only after its db sync Job; the Deployment keeps the
// installed image meanwhile, and on first install it is not created until
// the first db sync has succeeded. Upgrades go one release at a time (see
// release.CheckStep) through expand, migrate, the rollout and contract.
func PlanSchema(in SchemaInputs) SchemaPlan {
	p := SchemaPlan{InstalledRelease: in.InstalledRelease, InstalledImage: in.InstalledImage, Upgrade: in.Upgrade,
		LastUpgrade: in.LastUpgrade, Cond: hook.Condition{Type: model.CondDatabaseReady}}
	installed, err := release.Parse(in.InstalledRelease)
	if err != nil {
		// Only this hook writes status; a release it cannot read (or none)
		// is treated as none: db sync is safe on any schema.
		if in.InstalledRelease != "" {
			p.InstalledRelease, p.InstalledImage = "", ""
		}
		installed = release.Release{}
	}
	switch prob := release.TagProblem(in.Tag, in.Release); {
	case prob != "":
		p.refuse(in, model.ReasonImageReleaseMismatch, fmt.Sprintf("spec.image.tag %s (spec.openStackRelease): no schema Job runs for it and glance-api keeps its image", prob))
		return p
	case p.Upgrade != nil:
		p.resume(in, installed)
	case installed.IsZero():
		p.sync(in, "the first schema")
	default:
		p.step(in, installed)
	}
	p.Run = runOf(p.InstalledRelease, p.InstalledImage, p.Upgrade, in)
	return p
}

// resume goes on with the upgrade in progress when the spec still asks for
// its target, abandons it when the spec went back to the installed release
// before its contract step, and refuses any other change.
func (p *SchemaPlan) resume(in SchemaInputs, installed release.Release) {
	up := p.Upgrade
	target, err := release.Parse(up.TargetRelease)
	switch {
	case err == nil && in.Release == target && in.Image == up.TargetImage:
		p.advance(in)
	case !installed.IsZero() && in.Release == installed && in.Image == in.InstalledImage && up.Phase != api.PhaseContracting:
		p.Upgrade = nil
		p.LastUpgrade = &api.UpgradeEnd{Result: api.UpgradeAborted, FromRelease: installed.String(), ToRelease: up.TargetRelease}
		p.Cond = hook.Condition{Type: model.CondDatabaseReady, Status: true, Reason: model.ReasonDatabaseSynced,
			Message: fmt.Sprintf("the upgrade to %s was abandoned in phase %s, before its contract step; release %s runs on its schema again", excerpt.Value(up.TargetRelease), excerpt.Value(up.Phase), installed)}
	default:
		p.refuse(in, model.ReasonUpgradeTargetChanged, fmt.Sprintf("an upgrade from %s to %s (image %s) is in phase %s: set spec.openStackRelease and the image back to it to finish it%s",
			excerpt.Value(in.InstalledRelease), excerpt.Value(up.TargetRelease), excerpt.Name(up.TargetImage), excerpt.Value(up.Phase), abandonHint(up, in.InstalledRelease)))
	}
}

// step takes the spec's release from the installed one: nothing or a db
// sync for the same release, an upgrade to the next, a refusal otherwise.
func (p *SchemaPlan) step(in SchemaInputs, installed release.Release) {
	switch step, why := release.CheckStep(installed, in.Release); step {
	case release.Same:
		if in.Image == in.InstalledImage {
			p.Cond = schemaInPlace(installed.String(), in.InstalledImage)
		} else {
			p.sync(in, "the schema of "+installed.String())
		}
	case release.Upgrade:
		p.Upgrade = &api.UpgradeStatus{Phase: api.PhaseExpanding, TargetRelease: in.Release.String(), TargetImage: in.Image}
		p.advance(in)
	case release.Downgrade:
		p.refuse(in, model.ReasonDowngradeNotSupported, why)
	default:
		p.refuse(in, model.ReasonUpgradePathInvalid, why)
	}
}

func abandonHint(up *api.UpgradeStatus, installed string) string {
	if up.Phase == api.PhaseContracting {
		return "; it can no longer be abandoned, the contract step has started"
	}
	return fmt.Sprintf(", or back to %s and its image to abandon it", excerpt.Value(installed))
}

// runOf is what the Deployment runs for a status: the upgrade's image once
// its migrate step has succeeded, else the installed image. Before the first
// schema is synced, a Deployment that already runs (made before the schema
// Jobs existed) keeps its image; otherwise there is none.
func runOf(installedRelease, installedImage string, up *api.UpgradeStatus, in SchemaInputs) *RunTarget {
	if up != nil && (up.Phase == api.PhaseRollingUpdate || up.Phase == api.PhaseContracting) {
		if r, err := release.Parse(up.TargetRelease); err == nil {
			return &RunTarget{Image: up.TargetImage, Release: r}
		}
	}
	if installedImage != "" {
		if r, err := release.Parse(installedRelease); err == nil {
			return &RunTarget{Image: installedImage, Release: r}
		}
	}
	if in.Deployment != nil {
		return &RunTarget{Image: in.Deployment.Image, Release: in.Release}
	}
	return nil
}

// refuse keeps everything as it is and says why.
func (p *SchemaPlan) refuse(in SchemaInputs, reason, why string) {
	p.Cond = hook.Condition{Type: model.CondDatabaseReady, Reason: reason, Message: why}
	p.Run = runOf(p.InstalledRelease, p.InstalledImage, p.Upgrade, in)
}

// state looks a step's Job up among the observed ones.
func (in SchemaInputs) state(j observe.SchemaJob) (name string, st observe.JobState, observed bool) {
	name = in.JobName(j)
	for _, o := range in.Jobs {
		if o.Name == name {
			return name, o.State, true
		}
	}
	return name, observe.JobRunning, false
}

// blocker is an unfinished observed Job other than name: schema Jobs run
// one at a time, and a running one is never cut short.
func (in SchemaInputs) blocker(name string) string {
	for _, o := range in.Jobs {
		if o.Name != name && o.State == observe.JobRunning {
			return o.Name
		}
	}
	return ""
}

// logsHint is how to read a Job's logs and run it again.
func (in SchemaInputs) logsHint(name string) string {
	return fmt.Sprintf("read its logs with `kubectl -n %s logs job/%s --all-containers`; once the cause is fixed, delete the Job and it runs again", in.Namespace, name)
}

// sync runs db sync (and loads the metadata definitions) for the spec's
// image; once it has succeeded, that image and release are installed.
func (p *SchemaPlan) sync(in SchemaInputs, what string) {
	j := observe.SchemaJob{Action: observe.ActionSync, Image: in.Image}
	name, st, observed := in.state(j)
	if !observed {
		if b := in.blocker(name); b != "" {
			p.Cond = hook.Condition{Type: model.CondDatabaseReady, Reason: model.ReasonDBSyncInProgress,
				Message: fmt.Sprintf("Job %s, started for an earlier spec, is still running; Job %s syncs %s once it has finished", excerpt.Name(b), name, what)}
			return
		}
	}
	p.Job = &j
	switch st {
	case observe.JobSucceeded:
		p.InstalledRelease, p.InstalledImage = in.Release.String(), in.Image
		p.Cond = schemaInPlace(in.Release.String(), in.Image)
	case observe.JobFailed:
		p.Cond = hook.Condition{Type: model.CondDatabaseReady, Reason: model.ReasonDBSyncFailed,
			Message: fmt.Sprintf("Job %s (db sync of %s with image %s) failed: %s", name, in.Release, excerpt.Name(in.Image), in.logsHint(name))}
	default:
		next := "the glance-api Deployment is created once it has succeeded"
		if in.InstalledImage != "" || in.Deployment != nil {
			next = "glance-api keeps its image until it has succeeded"
		}
		p.Cond = hook.Condition{Type: model.CondDatabaseReady, Reason: model.ReasonDBSyncInProgress,
			Message: fmt.Sprintf("Job %s syncs %s with image %s; %s", name, what, excerpt.Name(in.Image), next)}
	}
}

// upgradeAction is the Job of an upgrade phase; RollingUpdate has none.
var upgradeAction = map[string]observe.Action{
	api.PhaseExpanding: observe.ActionExpand, api.PhaseMigrating: observe.ActionMigrate, api.PhaseContracting: observe.ActionContract,
}

// nextPhase follows a phase whose step has succeeded.
var nextPhase = map[string]string{
	api.PhaseExpanding: api.PhaseMigrating, api.PhaseMigrating: api.PhaseRollingUpdate,
	api.PhaseRollingUpdate: api.PhaseContracting,
}

// advance walks the upgrade in p.upgrade as far as the observed Jobs and
// Deployment allow in this sync.
func (p *SchemaPlan) advance(in SchemaInputs) {
	for {
		up := *p.Upgrade
		p.Upgrade = &up
		from := fmt.Sprintf("%s to %s", excerpt.Value(in.InstalledRelease), excerpt.Value(up.TargetRelease))
		if up.Phase == api.PhaseRollingUpdate {
			p.Job = nil
			if d := in.Deployment; d != nil && d.Image == up.TargetImage && d.RolledOut {
				up.Phase = nextPhase[up.Phase]
				continue
			}
			p.Cond = hook.Condition{Type: model.CondDatabaseReady, Reason: model.UpgradeRunning(up.Phase),
				Message: fmt.Sprintf("upgrading %s, phase %s: the schema is expanded and migrated, glance-api rolls to image %s; the contract Job runs once every pod runs it", from, up.Phase, excerpt.Name(up.TargetImage))}
			return
		}
		a, ok := upgradeAction[up.Phase]
		if !ok {
			// Only this hook writes the phase; start the walk again, every
			// step is safe to repeat.
			up.Phase = api.PhaseExpanding
			a = observe.ActionExpand
		}
		j := observe.SchemaJob{Action: a, Image: up.TargetImage}
		name, st, observed := in.state(j)
		if !observed {
			if b := in.blocker(name); b != "" {
				p.Job = nil
				p.Cond = hook.Condition{Type: model.CondDatabaseReady, Reason: model.UpgradeRunning(up.Phase),
					Message: fmt.Sprintf("upgrading %s, phase %s: Job %s, started for an earlier spec, is still running; Job %s starts once it has finished", from, up.Phase, excerpt.Name(b), name)}
				return
			}
		}
		p.Job = &j
		switch st {
		case observe.JobSucceeded:
			if up.Phase == api.PhaseContracting {
				p.LastUpgrade = &api.UpgradeEnd{Result: api.UpgradeComplete, FromRelease: p.InstalledRelease, ToRelease: up.TargetRelease}
				p.InstalledRelease, p.InstalledImage, p.Upgrade = up.TargetRelease, up.TargetImage, nil
				p.Cond = schemaInPlace(up.TargetRelease, up.TargetImage)
				return
			}
			up.Phase = nextPhase[up.Phase]
			continue
		case observe.JobFailed:
			p.Cond = hook.Condition{Type: model.CondDatabaseReady, Reason: model.UpgradeFailedIn(up.Phase),
				Message: fmt.Sprintf("upgrading %s, phase %s: Job %s (db %s with image %s) failed: %s", from, up.Phase, name, a, excerpt.Name(up.TargetImage), in.logsHint(name))}
		default:
			p.Cond = hook.Condition{Type: model.CondDatabaseReady, Reason: model.UpgradeRunning(up.Phase),
				Message: fmt.Sprintf("upgrading %s, phase %s: Job %s runs db %s with image %s", from, up.Phase, name, a, excerpt.Name(up.TargetImage))}
		}
		return
	}
}

// schemaInPlace is DatabaseReady once a schema Job has succeeded: the same
// from the sync that sees it succeed on, so the status is not written again
// for the wording alone.
func schemaInPlace(rel, image string) hook.Condition {
	return hook.Condition{Type: model.CondDatabaseReady, Status: true, Reason: model.ReasonDatabaseSynced,
		Message: fmt.Sprintf("the schema of %s is in place for image %s", rel, excerpt.Name(image))}
}
