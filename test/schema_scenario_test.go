package test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/simulate/chain"
)

// schemaLog records, in order, what happens to a Glance's schema Jobs and
// Deployment: Jobs created and ended (by the simulated Job controller),
// the Deployment's image set, and each rollout finished. It also checks on
// every intermediate state that the Deployment only ever runs an image
// whose schema work has succeeded (db sync, or db expand and db migrate).
type schemaLog struct {
	s      *scenario
	events []string
	// fail makes the Job of this action fail when it ends.
	fail string
	// hold keeps Jobs running until cleared; holdAction only Jobs of one
	// action.
	hold       bool
	holdAction string
	seenJobs   map[string]bool
	image      string
	rolled     string
	succeeded  map[string]map[string]bool // image -> actions that succeeded
}

func newSchemaLog(s *scenario) *schemaLog {
	l := &schemaLog{s: s, seenJobs: map[string]bool{}, succeeded: map[string]map[string]bool{}}
	check := s.w.AfterSync
	s.w.AfterSync = func(w *chain.World, r chain.Ref) error {
		if err := check(w, r); err != nil {
			return err
		}
		return l.observe(w)
	}
	s.w.JobResult = func(w *chain.World, job chain.Object) (chain.JobOutcome, error) {
		action, image := jobAction(job), jobImage(job)
		switch {
		case l.hold, action == l.holdAction:
			return chain.JobRuns, nil
		case action == l.fail:
			l.events = append(l.events, action+" failed")
			return chain.JobFails, nil
		}
		if l.succeeded[image] == nil {
			l.succeeded[image] = map[string]bool{}
		}
		l.succeeded[image][action] = true
		l.events = append(l.events, action+" succeeded")
		return chain.JobSucceeds, nil
	}
	return l
}

func jobAction(job chain.Object) string {
	l, _ := job["metadata"].(map[string]any)["labels"].(map[string]any)
	a, _ := l[names.LabelSchemaAction].(string)
	return a
}

func jobImage(job chain.Object) string {
	spec := job["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
	return spec["containers"].([]any)[0].(map[string]any)["image"].(string)
}

func deploymentImage(d chain.Object) string {
	spec := d["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
	return spec["containers"].([]any)[0].(map[string]any)["image"].(string)
}

func (l *schemaLog) observe(w *chain.World) error {
	for _, o := range w.Objects() {
		r := chain.RefOf(o)
		switch r.Kind {
		case "Job":
			// A Job deleted and created again is a new one.
			key := r.Name + "@" + fmt.Sprint(o["metadata"].(map[string]any)["creationTimestamp"])
			if !l.seenJobs[key] {
				l.seenJobs[key] = true
				l.events = append(l.events, "create "+jobAction(o)+" "+jobImage(o))
			}
		case "Deployment":
			image := deploymentImage(o)
			ok := l.succeeded[image]
			if !ok["sync"] && !(ok["expand"] && ok["migrate"]) {
				return fmt.Errorf("the Deployment runs %s, whose schema work has not succeeded (%v)", image, ok)
			}
			if image != l.image {
				l.image = image
				l.events = append(l.events, "deploy "+image)
			}
			st, _ := o["status"].(map[string]any)
			gen := o["metadata"].(map[string]any)["generation"]
			if st != nil && fmt.Sprint(st["observedGeneration"]) == fmt.Sprint(gen) && l.rolled != image {
				l.rolled = image
				l.events = append(l.events, "rolled out "+image)
			}
		}
	}
	return nil
}

// upgradeTo converges the guide's standalone Glance, lets shape decide how
// the Jobs end from here, then moves openStackRelease (and the image, which
// follows it) to rel and converges again.
func upgradeTo(s *scenario, rel string, shape func(*schemaLog)) *schemaLog {
	log := newSchemaLog(s)
	standalone(s)
	shape(log)
	s.apply(strings.ReplaceAll(standaloneGlance, `"2025.2"`, `"`+rel+`"`))
	s.converge()
	return log
}

// take returns the events since the last take.
func (l *schemaLog) take() []string {
	out := l.events
	l.events = nil
	return out
}

func TestFirstInstallWaitsForTheSchema(t *testing.T) {
	s := newScenario(t)
	log := newSchemaLog(s)
	log.hold = true
	standalone(s)
	assert.False(t, s.exists("Deployment", "glance"), "no Deployment before the schema is synced")
	assert.Equal(t, "False/DBSyncInProgress", s.condition("Glance", "glance", "DatabaseReady"))
	assert.Equal(t, "False/NotAllReady", s.condition("Glance", "glance", "Ready"))
	jobs := s.names("Job")
	require.Len(t, jobs, 1)
	assert.True(t, strings.HasPrefix(jobs[0], "glance-db-sync-"), jobs[0])
	assert.Contains(t, conditionMessage(s.get("Glance", "glance"), "DatabaseReady"), "the glance-api Deployment is created once it has succeeded")
	assert.True(t, s.exists("ConfigMap", jobConfig(s, jobs[0])), "the Job mounts the rendered config")

	log.hold = false
	s.converge()
	assert.Equal(t, []string{"create sync ghcr.io/c5c3/glance:2025.2", "sync succeeded", "deploy ghcr.io/c5c3/glance:2025.2", "rolled out ghcr.io/c5c3/glance:2025.2"}, log.take())
	assert.Equal(t, "True/DatabaseSynced", s.condition("Glance", "glance", "DatabaseReady"))
	assert.Equal(t, "True/AllReady", s.condition("Glance", "glance", "Ready"))
	st := s.get("Glance", "glance")["status"].(map[string]any)
	assert.Equal(t, "2025.2", st["installedRelease"])
	assert.Equal(t, "ghcr.io/c5c3/glance:2025.2", st["installedImage"])
	assert.Equal(t, jobs, s.names("Job"), "the succeeded Job of the installed image stays, for its logs")
}

func jobConfig(s *scenario, job string) string {
	spec := s.get("Job", job)["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
	cfg, _ := mounts(map[string]any{"spec": map[string]any{"template": map[string]any{"spec": spec}}})
	return cfg
}

func TestFailedSchemaJobIsReportedAndRetried(t *testing.T) {
	s := newScenario(t)
	log := newSchemaLog(s)
	log.fail = "sync"
	standalone(s)
	job := s.names("Job")[0]
	assert.Equal(t, "False/DBSyncFailed", s.condition("Glance", "glance", "DatabaseReady"))
	msg := conditionMessage(s.get("Glance", "glance"), "DatabaseReady")
	assert.Contains(t, msg, "Job "+job+" (db sync of 2025.2 with image \"ghcr.io/c5c3/glance:2025.2\") failed")
	assert.Contains(t, msg, "kubectl -n openstack logs job/"+job+" --all-containers")
	assert.False(t, s.exists("Deployment", "glance"))

	// Fixed, the Job is deleted by hand: the hook creates it again, it runs.
	log.fail = ""
	log.take()
	require.True(t, s.w.Delete(chain.Ref{APIVersion: "batch/v1", Kind: "Job", Namespace: "openstack", Name: job}))
	s.converge()
	assert.Equal(t, []string{"create sync ghcr.io/c5c3/glance:2025.2", "sync succeeded", "deploy ghcr.io/c5c3/glance:2025.2", "rolled out ghcr.io/c5c3/glance:2025.2"}, log.take())
	assert.Equal(t, "True/AllReady", s.condition("Glance", "glance", "Ready"))
}

// TestReleaseUpgradeWalk changes openStackRelease to the next release and
// follows what happens, in order: expand, migrate, the rollout to the new
// image (now under uWSGI), then contract once every pod runs it.
func TestReleaseUpgradeWalk(t *testing.T) {
	s := newScenario(t)
	log := newSchemaLog(s)
	standalone(s)
	log.take()
	oldConfig, _ := mounts(s.get("Deployment", "glance"))
	assert.Equal(t, "python3", s.get("Deployment", "glance")["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["command"].([]any)[0], "the eventlet server: glance-api's main run by python3")

	s.apply(strings.ReplaceAll(standaloneGlance, `"2025.2"`, `"2026.1"`))
	s.converge()
	assert.Equal(t, []string{
		"create expand ghcr.io/c5c3/glance:2026.1", "expand succeeded",
		"create migrate ghcr.io/c5c3/glance:2026.1", "migrate succeeded",
		"deploy ghcr.io/c5c3/glance:2026.1", "rolled out ghcr.io/c5c3/glance:2026.1",
		"create contract ghcr.io/c5c3/glance:2026.1", "contract succeeded",
	}, log.take(), "expand, migrate, roll, contract: each its own Job, in this order")
	g := s.get("Glance", "glance")
	st := g["status"].(map[string]any)
	assert.Equal(t, "2026.1", st["installedRelease"])
	assert.Nil(t, st["upgrade"], "the upgrade is over")
	assert.Equal(t, "True/DatabaseSynced", conditionOf(g, "DatabaseReady"))
	assert.Equal(t, "True/AllReady", conditionOf(g, "Ready"))

	d := s.get("Deployment", "glance")
	ctr := d["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
	assert.Equal(t, []any{"uwsgi"}, ctr["command"], "2026.1 runs under uWSGI")
	cfg, _ := mounts(d)
	assert.NotEqual(t, oldConfig, cfg)
	assert.Contains(t, s.get("ConfigMap", cfg)["data"].(map[string]any), "glance-api-uwsgi.ini")
	jobs := s.names("Job")
	assert.Len(t, jobs, 3, "the expand, migrate and contract Jobs of the installed image stay; the old sync Job is gone: %v", jobs)

	s.converge() // a resync makes no Event again
	assert.ElementsMatch(t, []string{
		"DatabaseSynced: the schema of 2025.2 is in place for image \"ghcr.io/c5c3/glance:2025.2\"",
		"UpgradeInitiated: Upgrade initiated: 2025.2 → 2026.1",
		"ExpandComplete: Expand phase complete: 2025.2 → 2026.1",
		"MigrateComplete: Migrate phase complete: 2025.2 → 2026.1",
		"DeploymentRolloutComplete: Deployment rollout complete during upgrade 2025.2 → 2026.1",
		"UpgradeComplete: Upgrade complete: 2025.2 → 2026.1",
	}, glanceEvents(s), "each step once, the end an UpgradeComplete and no second DatabaseSynced")
}

// glanceEvents are the Glance's Events as "reason: note".
func glanceEvents(s *scenario) []string {
	var out []string
	for _, e := range s.w.ObjectsIn("openstack", "Event") {
		out = append(out, fmt.Sprintf("%v: %v", e["reason"], e["note"]))
	}
	return out
}

// TestUpgradePhasesInStatus stops each step's Job and reads the phase.
func TestUpgradePhasesInStatus(t *testing.T) {
	s := newScenario(t)
	log := upgradeTo(s, "2026.1", func(log *schemaLog) { log.hold = true })
	phase := func() string {
		up, _ := s.get("Glance", "glance")["status"].(map[string]any)["upgrade"].(map[string]any)
		return fmt.Sprint(up["phase"])
	}
	assert.Equal(t, "Expanding", phase())
	assert.Equal(t, "False/ExpandInProgress", s.condition("Glance", "glance", "DatabaseReady"))
	assert.Equal(t, "ghcr.io/c5c3/glance:2025.2", deploymentImage(s.get("Deployment", "glance")), "the old release runs while the schema is expanded")

	log.hold, log.fail = false, "migrate"
	s.converge()
	assert.Equal(t, "Migrating", phase())
	assert.Equal(t, "False/MigrateFailed", s.condition("Glance", "glance", "DatabaseReady"))
	assert.Contains(t, conditionMessage(s.get("Glance", "glance"), "DatabaseReady"), "phase Migrating: Job glance-db-migrate-")
	assert.Equal(t, "ghcr.io/c5c3/glance:2025.2", deploymentImage(s.get("Deployment", "glance")), "no pod runs a release whose schema is not migrated")

	// Going back before contract abandons the upgrade.
	s.apply(standaloneGlance)
	s.converge()
	assert.Nil(t, s.get("Glance", "glance")["status"].(map[string]any)["upgrade"])
	assert.Equal(t, "True/DatabaseSynced", s.condition("Glance", "glance", "DatabaseReady"))
	assert.Equal(t, "ghcr.io/c5c3/glance:2025.2", deploymentImage(s.get("Deployment", "glance")))
	s.converge()
	events := glanceEvents(s)
	assert.Contains(t, events, "UpgradeAborted: Upgrade 2025.2 → 2026.1 aborted: spec release reverted to installed release 2025.2")
	assert.Equal(t, 1, count(events, "UpgradeAborted: "), "one UpgradeAborted: %v", events)
	assert.Equal(t, 1, count(events, "DatabaseSynced: "), "the abort is no DatabaseSynced: only the first install's: %v", events)
}

// count is how many of lines start with prefix.
func count(lines []string, prefix string) int {
	n := 0
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) {
			n++
		}
	}
	return n
}

func TestPatchBumpSyncsBeforeTheRoll(t *testing.T) {
	s := newScenario(t)
	log := newSchemaLog(s)
	standalone(s)
	log.take()
	s.apply(strings.Replace(standaloneGlance, `tag: "2025.2"`, `tag: "2025.2-p1"`, 1))
	s.converge()
	assert.Equal(t, []string{"create sync ghcr.io/c5c3/glance:2025.2-p1", "sync succeeded",
		"deploy ghcr.io/c5c3/glance:2025.2-p1", "rolled out ghcr.io/c5c3/glance:2025.2-p1"}, log.take())
	assert.Equal(t, "2025.2", s.get("Glance", "glance")["status"].(map[string]any)["installedRelease"])
	assert.Len(t, s.names("Job"), 1, "only the installed image's sync Job stays")
}

func TestRefusedReleaseChangesKeepWhatRuns(t *testing.T) {
	cases := map[string]struct {
		reason string
		edit   string
		cond   string
		want   string
	}{
		"Skip": {"two releases at once", strings.ReplaceAll(standaloneGlance, `"2025.2"`, `"2026.2"`), "DatabaseReady", "False/UpgradePathInvalid"},
		// The tag rule is one of the rules admission and the sync hook
		// share, so the spec is refused before the schema plan sees it.
		"Mismatch": {"an image of another release", strings.Replace(standaloneGlance, `tag: "2025.2"`, `tag: "2026.1"`, 1), "ConfigRendered", "False/InvalidSpec"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := newScenario(t)
			log := newSchemaLog(s)
			standalone(s)
			log.take()
			s.apply(tc.edit) // the webhook would refuse it; the sync hook holds anyway
			s.converge()
			assert.Equal(t, tc.want, s.condition("Glance", "glance", tc.cond), tc.reason)
			assert.Empty(t, log.take(), "%s: no Job, no roll", tc.reason)
			assert.Equal(t, "ghcr.io/c5c3/glance:2025.2", deploymentImage(s.get("Deployment", "glance")))
		})
	}
}

// TestCredentialRotationRollsThePods: the pods read the database URL and
// the service password from Secrets through their environment, so a
// rotation changes the digest on the pod template, and only that.
func TestCredentialRotationRollsThePods(t *testing.T) {
	s := newScenario(t)
	newSchemaLog(s)
	standalone(s)
	digest := func() string {
		tpl := s.get("Deployment", "glance")["spec"].(map[string]any)["template"].(map[string]any)
		return tpl["metadata"].(map[string]any)["annotations"].(map[string]any)[names.AnnotationCredentialsDigest].(string)
	}
	d0, jobs := digest(), s.names("Job")
	s.apply(strings.Replace(glanceSecrets, `password: "db-secret@:/%0001"`, `password: "db-secret-rotated"`, 1))
	s.converge()
	d1 := digest()
	assert.NotEqual(t, d0, d1, "a new database password rolls the pods")
	assert.Contains(t, secretText(t, s.get("Secret", "glance-db-connection"), "connection"), ":db-secret-rotated@")
	assert.Equal(t, jobs, s.names("Job"), "rotation runs no schema Job")
	s.apply(strings.Replace(glanceSecrets, `password: service-secret-0001`, `password: service-secret-0002`, 1))
	s.converge()
	assert.NotEqual(t, d1, digest(), "a new service password rolls the pods")
	s.converge()
	assert.NotContains(t, fmt.Sprint(s.get("Deployment", "glance")), "db-secret-rotated", "only the digest is on the Deployment")
}

func TestMissingDatabaseSecret(t *testing.T) {
	s := newScenario(t)
	newSchemaLog(s)
	s.apply(strings.Split(credentials, "\n---\n")[0] + "\n---\n" + standaloneGlance + "\n---\n" +
		standaloneBackend("primary", "glance-images", "garage-s3-credentials", true))
	s.converge()
	assert.Equal(t, "False/WaitingForDBCredentials", s.condition("Glance", "glance", "DatabaseReady"))
	assert.Contains(t, conditionMessage(s.get("Glance", "glance"), "DatabaseReady"), `Secret "glance-db" does not exist`)
	assert.Equal(t, "False/WaitingForCredentials", s.condition("Glance", "glance", "ServiceUserReady"))
	assert.Empty(t, s.names("Job"))
	assert.False(t, s.exists("Deployment", "glance"))
	s.apply(glanceSecrets)
	s.converge()
	assert.Equal(t, "True/AllReady", s.condition("Glance", "glance", "Ready"))
}
