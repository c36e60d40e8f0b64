package report

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/excerpt"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
	"github.com/c5c3/glance-hooks/hooks/glance/observe"
)

// Reasons of the Events on a Glance, the reference's names.
const (
	EventBackendSkipped            = model.ReasonBackendSkipped
	EventDatabaseSynced            = "DatabaseSynced"
	EventDBSyncFailed              = "DBSyncFailed"
	EventUpgradeInitiated          = "UpgradeInitiated"
	EventExpandComplete            = "ExpandComplete"
	EventMigrateComplete           = "MigrateComplete"
	EventDeploymentRolloutComplete = "DeploymentRolloutComplete"
	EventUpgradeComplete           = "UpgradeComplete"
	EventUpgradeAborted            = "UpgradeAborted"
	EventExpandFailed              = "ExpandFailed"
	EventMigrateFailed             = "MigrateFailed"
	EventContractFailed            = "ContractFailed"
	EventDowngradeNotSupported     = "DowngradeNotSupported"
	EventUpgradePathInvalid        = "UpgradePathInvalid"
	EventUpgradeTargetChanged      = "UpgradeTargetChanged"
	EventExtraConfigOwnedKey       = "ExtraConfigOwnedKeyOverride"
)

// Who reports the Events. Both are constants: an Event carrying the pod
// that answered would differ between the replicas of the service.
const (
	EventReportingController = "c5c3.io/glance-hooks"
	EventReportingInstance   = "glance-hooks"
)

// EventFreshFor is how long after its condition's transition a Normal
// Event is still created. A Normal Event reports a step done once; the API
// server deletes every Event after its TTL (one hour by default), and
// without a bound the next sync would create it again, every TTL, for as
// long as the Glance stays in that state. The Event is created by the sync
// that follows the status write, seconds after the transition, so the bound
// only matters once the API server has deleted it.
const EventFreshFor = 10 * time.Minute

// eventTimeLayout is the MicroTime form events.k8s.io/v1 requires for
// eventTime; the API server refuses a time without the microseconds.
const eventTimeLayout = "2006-01-02T15:04:05.000000Z"

// EventChild is an events.k8s.io/v1 Event as the hook returns it: only the
// fields it sets, so no empty deprecated field reaches the API server,
// which refuses them on create.
type EventChild struct {
	metav1.TypeMeta     `json:",inline"`
	metav1.ObjectMeta   `json:"metadata"`
	EventTime           string         `json:"eventTime"`
	ReportingController string         `json:"reportingController"`
	ReportingInstance   string         `json:"reportingInstance"`
	Action              string         `json:"action"`
	Reason              string         `json:"reason"`
	Regarding           eventRegarding `json:"regarding"`
	Note                string         `json:"note"`
	Type                string         `json:"type"`
}

type eventRegarding struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace"`
	Name       string `json:"name"`
	UID        string `json:"uid"`
}

// MaxEventNote is the longest note events.k8s.io/v1 accepts, in bytes.
const MaxEventNote = 1024

// Occurrence is one Event the observed status calls for.
type Occurrence struct {
	Warning bool
	Reason  string
	Action  string
	// subject tells apart two Events of one reason and one transition
	// (two skipped backends).
	subject string
	Note    string
	// At is the lastTransitionTime of the condition it comes from.
	At metav1.Time
}

// events are the Event children of a Glance: one per occurrence its observed
// status reports, and every Event observed among its children that is no
// longer called for, returned as last applied until the API server's TTL
// deletes it. Everything comes from the request: the status Metacontroller
// observed, not the one this sync computes (a transition computed now is
// stamped with this replica's clock; once written and observed, every
// replica reads the same time), so the name and the bytes of an Event are
// the same in every answer. now only decides whether a Normal Event not
// observed yet is still fresh (EventFreshFor).
func EventsOf(g *api.Glance, observed observe.ObservedEvents, now time.Time, sources []func(api.GlanceStatus) []Occurrence) ([]any, error) {
	byName := map[string]any{}
	// One label map for every Event: nothing writes to it.
	labels := model.ObjectLabels(g)
	for _, o := range occurrences(g.Status, sources) {
		if o.At.IsZero() {
			continue
		}
		e := eventOf(g, labels, o)
		seen := observed.Seen(e.Name)
		if !o.Warning && !seen && now.Sub(o.At.Time) > EventFreshFor {
			continue
		}
		byName[e.Name] = e
	}
	for _, listed := range observed.Listed {
		name := listed.Name
		if _, ok := byName[name]; ok {
			continue
		}
		applied, err := observed.Applied.AnyOf(names.EventsKey, name)
		if err != nil {
			return nil, hook.Invalid("observed Event %s: %v", excerpt.Name(name), err)
		}
		byName[name] = applied
	}
	out := make([]any, 0, len(byName))
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		out = append(out, byName[name])
	}
	return out, nil
}

// occurrences reads the Events a status calls for: a skipped backend, the
// schema synced or failed, each step of a release upgrade and its refusals.
func occurrences(st api.GlanceStatus, sources []func(api.GlanceStatus) []Occurrence) []Occurrence {
	var out []Occurrence
	for _, source := range sources {
		out = append(out, source(st)...)
	}
	return out
}

// SchemaOccurrences is the schema's Event, when its status calls for one.
func SchemaOccurrences(st api.GlanceStatus) []Occurrence {
	if o, ok := schemaOccurrence(st); ok {
		return []Occurrence{o}
	}
	return nil
}

// SkippedBackends is a GlanceBackendSkipped Warning per backend the config
// leaves out while BackendsReady is False.
func SkippedBackends(st api.GlanceStatus) []Occurrence {
	c, ok := hook.FindCondition(st.Conditions, model.CondBackendsReady)
	if !ok || c.Status != metav1.ConditionFalse {
		return nil
	}
	var out []Occurrence
	for _, b := range st.Backends {
		if b.Reason != model.ReasonBackendSkipped && b.Reason != model.ReasonCABundleConflict {
			continue
		}
		cause := ""
		if b.Reason != model.ReasonBackendSkipped {
			cause = " (" + b.Reason + ")"
		}
		out = append(out, Occurrence{Warning: true, Reason: EventBackendSkipped, Action: "ProjectBackend", subject: b.Name,
			Note: fmt.Sprintf("backend %q (store %s) is skipped%s: %s", b.Name, b.StoreID, cause, b.Message), At: c.LastTransitionTime})
	}
	return out
}

// schemaOccurrence is the Event DatabaseReady calls for, if any: the schema
// synced or failed, an upgrade step, ended or refused.
func schemaOccurrence(st api.GlanceStatus) (Occurrence, bool) {
	c, ok := hook.FindCondition(st.Conditions, model.CondDatabaseReady)
	if !ok {
		return Occurrence{}, false
	}
	phase, target := "", ""
	if st.Upgrade != nil {
		phase, target = st.Upgrade.Phase, st.Upgrade.TargetRelease
	}
	o := Occurrence{Action: "SyncSchema", Note: c.Message, At: c.LastTransitionTime, subject: target}
	if model.UpgradeStepRunning(c.Reason) {
		return upgradeStep(o, st.InstalledRelease, phase, target)
	}
	switch c.Reason {
	case model.ReasonDatabaseSynced:
		if c.Status != metav1.ConditionTrue {
			return Occurrence{}, false
		}
		if end := st.LastUpgrade; end != nil && end.EndedAt.Equal(&c.LastTransitionTime) {
			return upgradeEnd(o, *end)
		}
		o.Reason, o.subject = EventDatabaseSynced, st.InstalledRelease
	case model.ReasonDBSyncFailed:
		o.Warning, o.Reason = true, EventDBSyncFailed
	default:
		o.Warning, o.Action, o.Reason = true, "Upgrade", upgradeRefusals(c.Reason)
	}
	return o, o.Reason != ""
}

// upgradeRefusals is the Warning of a DatabaseReady reason that stops an
// upgrade ("" for a reason that calls for none).
func upgradeRefusals(reason string) string {
	switch reason {
	case model.ReasonExpandFailed:
		return EventExpandFailed
	case model.ReasonMigrateFailed:
		return EventMigrateFailed
	case model.ReasonContractFailed:
		return EventContractFailed
	case model.ReasonDowngradeNotSupported:
		return EventDowngradeNotSupported
	case model.ReasonUpgradePathInvalid:
		return EventUpgradePathInvalid
	case model.ReasonUpgradeTargetChanged:
		return EventUpgradeTargetChanged
	}
	return ""
}

// upgradeStep is the Normal Event of the upgrade phase a Glance is in. The
// condition's message changes within a phase (which Job runs); the note
// names the step only, so one phase is one Event. The notes are the
// reference's words.
func upgradeStep(o Occurrence, installed, phase, target string) (Occurrence, bool) {
	steps := map[string]struct{ reason, done string }{
		api.PhaseExpanding:     {EventUpgradeInitiated, "Upgrade initiated: %s → %s"},
		api.PhaseMigrating:     {EventExpandComplete, "Expand phase complete: %s → %s"},
		api.PhaseRollingUpdate: {EventMigrateComplete, "Migrate phase complete: %s → %s"},
		api.PhaseContracting:   {EventDeploymentRolloutComplete, "Deployment rollout complete during upgrade %s → %s"},
	}
	step, known := steps[phase]
	if !known {
		return Occurrence{}, false
	}
	o.Action, o.Reason = "Upgrade", step.reason
	o.Note = fmt.Sprintf(step.done, cmp.Or(installed, "(none)"), target)
	return o, true
}

// upgradeEnd is the Normal Event of an upgrade that ended with DatabaseReady's
// transition to True: its contract step succeeded, or the spec went back
// to the installed release before it. The reference's words; the
// condition's message is not the note, so the one status write after an
// abort (which rewrites the message, not the transition) makes no other
// Event.
func upgradeEnd(o Occurrence, end api.UpgradeEnd) (Occurrence, bool) {
	from, to := cmp.Or(end.FromRelease, "(none)"), end.ToRelease
	o.Action, o.subject = "Upgrade", to
	switch end.Result {
	case api.UpgradeComplete:
		o.Reason, o.Note = EventUpgradeComplete, fmt.Sprintf("Upgrade complete: %s → %s", from, to)
	case api.UpgradeAborted:
		o.Reason = EventUpgradeAborted
		o.Note = fmt.Sprintf("Upgrade %s → %s aborted: spec release reverted to installed release %s", from, to, from)
	default:
		return Occurrence{}, false
	}
	return o, true
}

// eventOf is the Event of one occurrence. Its name is the Glance's and a
// digest of what it says, so one name always carries the same bytes and a
// resync returns the Event already there.
func eventOf(g *api.Glance, labels map[string]string, o Occurrence) *EventChild {
	typ := "Normal"
	if o.Warning {
		typ = "Warning"
	}
	note := hook.Truncate(o.Note, MaxEventNote)
	at := o.At.UTC().Format(eventTimeLayout)
	sum := sha256.Sum256([]byte(strings.Join([]string{string(g.UID), o.Reason, o.subject, at, note}, "\x00")))
	return &EventChild{
		TypeMeta: metav1.TypeMeta{APIVersion: names.EventAPIVersion, Kind: "Event"},
		ObjectMeta: metav1.ObjectMeta{Name: g.Name + "." + hex.EncodeToString(sum[:8]), Namespace: g.Namespace,
			Labels: labels},
		EventTime:           at,
		ReportingController: EventReportingController,
		ReportingInstance:   EventReportingInstance,
		Action:              o.Action,
		Reason:              o.Reason,
		Regarding: eventRegarding{APIVersion: api.GlanceAPIVersion, Kind: api.KindGlance, Namespace: g.Namespace,
			Name: g.Name, UID: string(g.UID)},
		Note: note,
		Type: typ,
	}
}
