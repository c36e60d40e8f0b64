package glance

import (
	"fmt"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/excerpt"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/release"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
)

// action is what a schema Job does.
type action string

const (
	// actionSync runs glance-manage db sync, then loads the metadata
	// definitions: first install, and a new image of the same release.
	actionSync action = "sync"
	// The three steps of a release upgrade; contract also loads the
	// metadata definitions of the new release.
	actionExpand   action = "expand"
	actionMigrate  action = "migrate"
	actionContract action = "contract"
)

// jobState is what an observed Job has come to.
type jobState int

const (
	jobRunning jobState = iota
	jobSucceeded
	jobFailed
)

// schemaJob is one schema Job: what it does with which image.
type schemaJob struct {
	action action
	image  string
}

// observedJob is a schema Job Metacontroller reported.
type observedJob struct {
	name  string
	job   schemaJob
	state jobState
}

// deployed is the observed Deployment as the schema steps read it.
type deployed struct {
	image     string
	rolledOut bool
}

// schemaInputs is what the schema decision reads.
type schemaInputs struct {
	// release and image are what the spec asks for, tag the image's tag.
	release release.Release
	image   string
	tag     string
	// status is the Glance's observed status: what is installed and the
	// upgrade in progress.
	installedRelease, installedImage string
	upgrade                          *api.UpgradeStatus
	jobs                             []observedJob
	deployment                       *deployed
	// jobName names the Job of a step.
	jobName func(schemaJob) string
	// namespace is for the kubectl commands messages show.
	namespace string
}

// runTarget is what the glance-api Deployment runs.
type runTarget struct {
	image   string
	release release.Release
}

// schemaPlan is the schema decision.
type schemaPlan struct {
	// run is what the Deployment runs; nil while no release's schema is
	// ready (first install) and nothing ran before.
	run *runTarget
	// job is the Job of the current step, returned whether it ran already
	// or not; nil when no step is due.
	job *schemaJob
	// installedRelease, installedImage and upgrade are the new status.
	installedRelease, installedImage string
	upgrade                          *api.UpgradeStatus
	cond                             hook.Condition
}

// planSchema decides which schema Job runs and what glance-api may run. No
// pod ever runs an image whose schema work has not succeeded: a new
// release's image only after its expand and migrate Jobs, a new image of
// the same release only after its db sync Job; the Deployment keeps the
// installed image meanwhile, and on first install it is not created until
// the first db sync has succeeded. Upgrades go one release at a time (see
// release.CheckStep) through expand, migrate, the rollout and contract.
func planSchema(in schemaInputs) schemaPlan {
	p := schemaPlan{installedRelease: in.installedRelease, installedImage: in.installedImage, upgrade: in.upgrade,
		cond: hook.Condition{Type: model.CondDatabaseReady}}
	installed, err := release.Parse(in.installedRelease)
	if err != nil {
		// Only this hook writes status; a release it cannot read (or none)
		// is treated as none: db sync is safe on any schema.
		if in.installedRelease != "" {
			p.installedRelease, p.installedImage = "", ""
		}
		installed = release.Release{}
	}
	switch prob := release.TagProblem(in.tag, in.release); {
	case prob != "":
		p.refuse(in, model.ReasonImageReleaseMismatch, fmt.Sprintf("spec.image.tag %s (spec.openStackRelease): no schema Job runs for it and glance-api keeps its image", prob))
		return p
	case p.upgrade != nil:
		p.resume(in, installed)
	case installed.IsZero():
		p.sync(in, "the first schema")
	default:
		p.step(in, installed)
	}
	p.run = runOf(p.installedRelease, p.installedImage, p.upgrade, in)
	return p
}

// resume goes on with the upgrade in progress when the spec still asks for
// its target, abandons it when the spec went back to the installed release
// before its contract step, and refuses any other change.
func (p *schemaPlan) resume(in schemaInputs, installed release.Release) {
	up := p.upgrade
	target, err := release.Parse(up.TargetRelease)
	switch {
	case err == nil && in.release == target && in.image == up.TargetImage:
		p.advance(in)
	case !installed.IsZero() && in.release == installed && in.image == in.installedImage && up.Phase != api.PhaseContracting:
		p.upgrade = nil
		p.cond = hook.Condition{Type: model.CondDatabaseReady, Status: true, Reason: model.ReasonSchemaSynced,
			Message: fmt.Sprintf("the upgrade to %s was abandoned in phase %s, before its contract step; release %s runs on its schema again", excerpt.Value(up.TargetRelease), excerpt.Value(up.Phase), installed)}
	default:
		p.refuse(in, model.ReasonUpgradeTargetChanged, fmt.Sprintf("an upgrade from %s to %s (image %s) is in phase %s: set spec.openStackRelease and the image back to it to finish it%s",
			excerpt.Value(in.installedRelease), excerpt.Value(up.TargetRelease), excerpt.Name(up.TargetImage), excerpt.Value(up.Phase), abandonHint(up, in.installedRelease)))
	}
}

// step takes the spec's release from the installed one: nothing or a db
// sync for the same release, an upgrade to the next, a refusal otherwise.
func (p *schemaPlan) step(in schemaInputs, installed release.Release) {
	switch step, why := release.CheckStep(installed, in.release); step {
	case release.Same:
		if in.image == in.installedImage {
			p.cond = schemaInPlace(installed.String(), in.installedImage)
		} else {
			p.sync(in, "the schema of "+installed.String())
		}
	case release.Upgrade:
		p.upgrade = &api.UpgradeStatus{Phase: api.PhaseExpanding, TargetRelease: in.release.String(), TargetImage: in.image}
		p.advance(in)
	case release.Downgrade:
		p.refuse(in, model.ReasonDowngradeNotSupported, why)
	default:
		p.refuse(in, model.ReasonUpgradeSkipsReleases, why)
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
func runOf(installedRelease, installedImage string, up *api.UpgradeStatus, in schemaInputs) *runTarget {
	if up != nil && (up.Phase == api.PhaseRollingUpdate || up.Phase == api.PhaseContracting) {
		if r, err := release.Parse(up.TargetRelease); err == nil {
			return &runTarget{image: up.TargetImage, release: r}
		}
	}
	if installedImage != "" {
		if r, err := release.Parse(installedRelease); err == nil {
			return &runTarget{image: installedImage, release: r}
		}
	}
	if in.deployment != nil {
		return &runTarget{image: in.deployment.image, release: in.release}
	}
	return nil
}

// refuse keeps everything as it is and says why.
func (p *schemaPlan) refuse(in schemaInputs, reason, why string) {
	p.cond = hook.Condition{Type: model.CondDatabaseReady, Reason: reason, Message: why}
	p.run = runOf(p.installedRelease, p.installedImage, p.upgrade, in)
}

// state looks a step's Job up among the observed ones.
func (in schemaInputs) state(j schemaJob) (name string, st jobState, observed bool) {
	name = in.jobName(j)
	for _, o := range in.jobs {
		if o.name == name {
			return name, o.state, true
		}
	}
	return name, jobRunning, false
}

// blocker is an unfinished observed Job other than name: schema Jobs run
// one at a time, and a running one is never cut short.
func (in schemaInputs) blocker(name string) string {
	for _, o := range in.jobs {
		if o.name != name && o.state == jobRunning {
			return o.name
		}
	}
	return ""
}

// logsHint is how to read a Job's logs and run it again.
func (in schemaInputs) logsHint(name string) string {
	return fmt.Sprintf("read its logs with `kubectl -n %s logs job/%s --all-containers`; once the cause is fixed, delete the Job and it runs again", in.namespace, name)
}

// sync runs db sync (and loads the metadata definitions) for the spec's
// image; once it has succeeded, that image and release are installed.
func (p *schemaPlan) sync(in schemaInputs, what string) {
	j := schemaJob{actionSync, in.image}
	name, st, observed := in.state(j)
	if !observed {
		if b := in.blocker(name); b != "" {
			p.cond = hook.Condition{Type: model.CondDatabaseReady, Reason: model.ReasonSchemaSyncRunning,
				Message: fmt.Sprintf("Job %s, started for an earlier spec, is still running; Job %s syncs %s once it has finished", excerpt.Name(b), name, what)}
			return
		}
	}
	p.job = &j
	switch st {
	case jobSucceeded:
		p.installedRelease, p.installedImage = in.release.String(), in.image
		p.cond = schemaInPlace(in.release.String(), in.image)
	case jobFailed:
		p.cond = hook.Condition{Type: model.CondDatabaseReady, Reason: model.ReasonSchemaSyncFailed,
			Message: fmt.Sprintf("Job %s (db sync of %s with image %s) failed: %s", name, in.release, excerpt.Name(in.image), in.logsHint(name))}
	default:
		next := "the glance-api Deployment is created once it has succeeded"
		if in.installedImage != "" || in.deployment != nil {
			next = "glance-api keeps its image until it has succeeded"
		}
		p.cond = hook.Condition{Type: model.CondDatabaseReady, Reason: model.ReasonSchemaSyncRunning,
			Message: fmt.Sprintf("Job %s syncs %s with image %s; %s", name, what, excerpt.Name(in.image), next)}
	}
}

// upgradeAction is the Job of an upgrade phase; RollingUpdate has none.
var upgradeAction = map[string]action{
	api.PhaseExpanding: actionExpand, api.PhaseMigrating: actionMigrate, api.PhaseContracting: actionContract,
}

// nextPhase follows a phase whose step has succeeded.
var nextPhase = map[string]string{
	api.PhaseExpanding: api.PhaseMigrating, api.PhaseMigrating: api.PhaseRollingUpdate,
	api.PhaseRollingUpdate: api.PhaseContracting,
}

// advance walks the upgrade in p.upgrade as far as the observed Jobs and
// Deployment allow in this sync.
func (p *schemaPlan) advance(in schemaInputs) {
	for {
		up := *p.upgrade
		p.upgrade = &up
		from := fmt.Sprintf("%s to %s", excerpt.Value(in.installedRelease), excerpt.Value(up.TargetRelease))
		if up.Phase == api.PhaseRollingUpdate {
			p.job = nil
			if d := in.deployment; d != nil && d.image == up.TargetImage && d.rolledOut {
				up.Phase = nextPhase[up.Phase]
				continue
			}
			p.cond = hook.Condition{Type: model.CondDatabaseReady, Reason: model.ReasonSchemaUpgrading,
				Message: fmt.Sprintf("upgrading %s, phase %s: the schema is expanded and migrated, glance-api rolls to image %s; the contract Job runs once every pod runs it", from, up.Phase, excerpt.Name(up.TargetImage))}
			return
		}
		a, ok := upgradeAction[up.Phase]
		if !ok {
			// Only this hook writes the phase; start the walk again, every
			// step is safe to repeat.
			up.Phase = api.PhaseExpanding
			a = actionExpand
		}
		j := schemaJob{a, up.TargetImage}
		name, st, observed := in.state(j)
		if !observed {
			if b := in.blocker(name); b != "" {
				p.job = nil
				p.cond = hook.Condition{Type: model.CondDatabaseReady, Reason: model.ReasonSchemaUpgrading,
					Message: fmt.Sprintf("upgrading %s, phase %s: Job %s, started for an earlier spec, is still running; Job %s starts once it has finished", from, up.Phase, excerpt.Name(b), name)}
				return
			}
		}
		p.job = &j
		switch st {
		case jobSucceeded:
			if up.Phase == api.PhaseContracting {
				p.installedRelease, p.installedImage, p.upgrade = up.TargetRelease, up.TargetImage, nil
				p.cond = schemaInPlace(up.TargetRelease, up.TargetImage)
				return
			}
			up.Phase = nextPhase[up.Phase]
			continue
		case jobFailed:
			p.cond = hook.Condition{Type: model.CondDatabaseReady, Reason: model.ReasonSchemaUpgradeFailed,
				Message: fmt.Sprintf("upgrading %s, phase %s: Job %s (db %s with image %s) failed: %s", from, up.Phase, name, a, excerpt.Name(up.TargetImage), in.logsHint(name))}
		default:
			p.cond = hook.Condition{Type: model.CondDatabaseReady, Reason: model.ReasonSchemaUpgrading,
				Message: fmt.Sprintf("upgrading %s, phase %s: Job %s runs db %s with image %s", from, up.Phase, name, a, excerpt.Name(up.TargetImage))}
		}
		return
	}
}

// schemaInPlace is DatabaseReady once a schema Job has succeeded: the same
// from the sync that sees it succeed on, so the status is not written again
// for the wording alone.
func schemaInPlace(rel, image string) hook.Condition {
	return hook.Condition{Type: model.CondDatabaseReady, Status: true, Reason: model.ReasonSchemaSynced,
		Message: fmt.Sprintf("the schema of %s is in place for image %s", rel, excerpt.Name(image))}
}
