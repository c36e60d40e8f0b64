package render

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"sigs.k8s.io/yaml"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/controlplane"
	glancehook "github.com/c5c3/glance-hooks/hooks/glance"
	"github.com/c5c3/glance-hooks/simulate/chain"
)

// OutputOptions say how objects are printed.
type OutputOptions struct {
	// ShowSecrets prints Secret data as stored (base64) instead of
	// "<redacted: N bytes>".
	ShowSecrets bool
	// KeepServerFields keeps what the API server and Metacontroller add
	// (uid, resourceVersion, generation, creationTimestamp, managedFields,
	// the controller-uid label, owner uids and an Event's uid of its
	// object, last-applied annotations).
	KeepServerFields bool
}

// Annotations that record a whole applied object, Secret data included.
const kubectlLastApplied = "kubectl.kubernetes.io/last-applied-configuration"

var lastAppliedAnnotations = []string{metacontroller.LastAppliedAnnotation, kubectlLastApplied}

// controllerUIDLabel is the selector label Metacontroller puts on children.
const controllerUIDLabel = "controller-uid"

// noiseFields are metadata fields a reader rarely needs.
var noiseFields = []string{"uid", "resourceVersion", "generation", "creationTimestamp", "managedFields", "selfLink"}

// Redacted is what a Secret value is printed as.
func Redacted(n int) string { return fmt.Sprintf("<redacted: %d bytes>", n) }

// Clean returns a copy of o as render prints it: Secret values redacted
// unless ShowSecrets, server-set fields dropped unless KeepServerFields.
func Clean(o chain.Object, opts OutputOptions) chain.Object {
	c := copyObject(o)
	meta, _ := c["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
	}
	if !opts.KeepServerFields {
		dropServerFields(c, meta)
	}
	if !opts.ShowSecrets && isSecret(c) {
		redactSecret(c)
		redactLastApplied(meta)
	}
	return c
}

// dropServerFields removes what the API server sets, and the uids that
// would differ from run to run.
func dropServerFields(c chain.Object, meta map[string]any) {
	for _, f := range noiseFields {
		delete(meta, f)
	}
	deleteKey(meta, "labels", controllerUIDLabel)
	for _, a := range lastAppliedAnnotations {
		deleteKey(meta, "annotations", a)
	}
	if refs, ok := meta["ownerReferences"].([]any); ok {
		for _, r := range refs {
			if m, ok := r.(map[string]any); ok {
				delete(m, "uid")
			}
		}
	}
	// An Event names its Glance by uid too.
	if reg, ok := c["regarding"].(map[string]any); ok && c["kind"] == "Event" {
		delete(reg, "uid")
	}
}

// redactLastApplied redacts a Secret's last-applied records: each holds
// the whole object as applied.
func redactLastApplied(meta map[string]any) {
	ann, ok := meta["annotations"].(map[string]any)
	if !ok {
		return
	}
	for _, a := range lastAppliedAnnotations {
		if s, ok := ann[a].(string); ok {
			ann[a] = redactRecord(s)
		}
	}
}

func isSecret(o chain.Object) bool { return o["kind"] == "Secret" && o["apiVersion"] == "v1" }

// redactSecret replaces every data and stringData value by its length.
func redactSecret(o chain.Object) {
	if data, ok := o["data"].(map[string]any); ok {
		for k, v := range data {
			s, _ := v.(string)
			n := len(s)
			if dec, err := base64.StdEncoding.DecodeString(s); err == nil {
				n = len(dec)
			}
			data[k] = Redacted(n)
		}
	}
	if sd, ok := o["stringData"].(map[string]any); ok {
		for k, v := range sd {
			s, _ := v.(string)
			sd[k] = Redacted(len(s))
		}
	}
}

// redactRecord redacts the Secret inside a last-applied record; a record
// that does not parse is dropped whole rather than printed.
func redactRecord(s string) string {
	var rec map[string]any
	if err := json.Unmarshal([]byte(s), &rec); err != nil {
		return Redacted(len(s))
	}
	redactSecret(rec)
	out, _ := json.Marshal(rec)
	return string(out)
}

// deleteKey deletes m[field][key] and drops m[field] when it is left empty.
func deleteKey(m map[string]any, field, key string) {
	sub, ok := m[field].(map[string]any)
	if !ok {
		return
	}
	delete(sub, key)
	if len(sub) == 0 {
		delete(m, field)
	}
}

func copyObject(o chain.Object) chain.Object {
	raw, _ := json.Marshal(o)
	var c chain.Object
	_ = json.Unmarshal(raw, &c)
	return c
}

// WriteYAML writes objects as a YAML stream, each document opened by "---".
func WriteYAML(w io.Writer, objs []chain.Object, opts OutputOptions) error {
	for _, o := range objs {
		out, err := yaml.Marshal(Clean(o, opts))
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "---\n%s", out); err != nil {
			return err
		}
	}
	return nil
}

// WriteJSON writes objects as one v1 List, the shape kubectl get -o json uses.
func WriteJSON(w io.Writer, objs []chain.Object, opts OutputOptions) error {
	items := make([]any, 0, len(objs))
	for _, o := range objs {
		items = append(items, Clean(o, opts))
	}
	out, err := json.MarshalIndent(map[string]any{"apiVersion": "v1", "kind": "List", "items": items}, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", out)
	return err
}

// isParent reports whether o is one of the kinds the hooks write status for.
func isParent(o chain.Object) bool {
	r := chain.RefOf(o)
	switch {
	case r.Kind == api.KindControlPlane && r.APIVersion == api.ControlPlaneAPIVersion:
		return true
	case (r.Kind == api.KindGlance || r.Kind == api.KindGlanceBackend) && r.APIVersion == api.GlanceAPIVersion:
		return true
	}
	return false
}

// Condition is one condition of a parent, as the table prints it.
type Condition struct {
	Type, Status, Reason, Message string
}

// ConditionsOf reads an object's status.conditions in their stored order.
func ConditionsOf(o chain.Object) []Condition {
	st, _ := o["status"].(map[string]any)
	list, _ := st["conditions"].([]any)
	var out []Condition
	for _, c := range list {
		m, _ := c.(map[string]any)
		str := func(k string) string { s, _ := m[k].(string); return s }
		out = append(out, Condition{Type: str("type"), Status: str("status"), Reason: str("reason"), Message: str("message")})
	}
	return out
}

// WriteConditions writes each parent's conditions as a table: KIND NAME
// TYPE STATUS REASON MESSAGE. NAME is the object's name, or namespace/name
// when the parents span namespaces. A condition that only reports what the
// simulated Job and Deployment controllers made up is marked, and a note
// under the table says what that means.
func WriteConditions(w io.Writer, objs []chain.Object) error {
	var parents []chain.Object
	namespaces := map[string]bool{}
	for _, o := range objs {
		if isParent(o) {
			parents = append(parents, o)
			namespaces[chain.RefOf(o).Namespace] = true
		}
	}
	if len(parents) == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 3, ' ', 0)
	fmt.Fprintln(tw, "KIND\tNAME\tTYPE\tSTATUS\tREASON\tMESSAGE")
	simulated := false
	for _, o := range parents {
		r := chain.RefOf(o)
		name := r.Name
		if len(namespaces) > 1 {
			name = r.Namespace + "/" + r.Name
		}
		conds := ConditionsOf(o)
		if len(conds) == 0 {
			fmt.Fprintf(tw, "%s\t%s\t-\t-\t-\tno conditions\n", r.Kind, name)
		}
		for _, c := range conds {
			msg := oneLine(c.Message)
			if fromSimulatedRollout(r, c) {
				msg, simulated = SimulatedMark+" "+msg, true
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.Kind, name, c.Type, c.Status, c.Reason, msg)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if simulated {
		_, err := fmt.Fprintln(w, SimulatedNote)
		return err
	}
	return nil
}

// SimulatedMark starts the message of a condition read from a Deployment
// status that render made up.
const SimulatedMark = "(simulated)"

// SimulatedNote explains SimulatedMark under the conditions table.
const SimulatedNote = SimulatedMark + " render runs no pods: it reports every Job succeeded and every Deployment rolled out " +
	"with all replicas available, so DatabaseReady, DeploymentReady, GlanceAPIReady, KeystoneRegistered (nothing reached Keystone), and each Ready " +
	"that waits for them, say what a cluster reports once the pods have run."

// fromSimulatedRollout reports whether a condition only restates a Job or
// Deployment status, which render's stand-in controllers set.
func fromSimulatedRollout(r chain.Ref, c Condition) bool {
	return r.Kind == api.KindGlance && (c.Type == glancehook.CondDeploymentReady || c.Type == glancehook.CondDatabaseReady ||
		c.Type == glancehook.CondGlanceAPIReady) ||
		r.Kind == api.KindControlPlane && c.Type == controlplane.CondKeystoneRegistered && c.Reason == controlplane.ReasonRegistered
}

// oneLine keeps a table row on one line whatever a message holds.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
