package chain

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
)

// Type is an apiVersion and kind.
type Type struct{ APIVersion, Kind string }

// Controller is one CompositeController: its parent type, child types and
// hooks.
type Controller struct {
	Name      string
	Parent    Type
	Children  []Type
	Customize func(*metacontroller.CustomizeRequest) (*metacontroller.CustomizeResponse, error)
	Sync      func(*metacontroller.SyncRequest, time.Time) (*metacontroller.SyncResponse, error)
}

// resourceKinds maps the plural resource names customize hooks use to kinds.
var resourceKinds = map[string]string{
	"secrets": "Secret", "configmaps": "ConfigMap", "deployments": "Deployment", "services": "Service",
	"glances": "Glance", "glancebackends": "GlanceBackend", "controlplanes": "ControlPlane",
}

// Result of a Run.
type Result struct {
	Rounds    int
	Converged bool
}

// Run syncs every parent of every controller, round after round, until a
// round changes nothing or maxRounds is reached.
func (w *World) Run(controllers []Controller, maxRounds int) (Result, error) {
	for round := 1; round <= maxRounds; round++ {
		before := w.version
		for _, c := range controllers {
			for _, r := range w.refsOfKind(c.Parent.Kind) {
				if r.APIVersion != c.Parent.APIVersion {
					continue
				}
				if err := w.syncOne(c, r); err != nil {
					return Result{Rounds: round}, err
				}
				if w.AfterSync != nil {
					if err := w.AfterSync(w, r); err != nil {
						return Result{Rounds: round}, err
					}
				}
			}
		}
		if err := w.finishJobs(); err != nil {
			return Result{Rounds: round}, err
		}
		if w.Rollouts {
			w.finishRollouts()
		}
		if w.version == before {
			return Result{Rounds: round, Converged: true}, nil
		}
		w.Now = w.Now.Add(time.Second)
	}
	return Result{Rounds: maxRounds}, nil
}

// syncOne is one customize + sync of one parent.
func (w *World) syncOne(c Controller, r Ref) error {
	parent, ok := w.objects[r]
	if !ok {
		return nil // deleted earlier in this round
	}
	req, err := w.SyncRequest(c, r)
	if err != nil {
		return err
	}
	resp, err := c.Sync(req, w.Now)
	if err != nil {
		return fmt.Errorf("sync %s: %w", r, err)
	}
	return w.applySync(c, r, parent, req.Children, resp)
}

// SyncRequest builds the request Metacontroller would send to c's sync hook
// for the parent r: its customize answer resolved into related objects, and
// every object of a declared child type it controls.
func (w *World) SyncRequest(c Controller, r Ref) (*metacontroller.SyncRequest, error) {
	parent, ok := w.objects[r]
	if !ok {
		return nil, fmt.Errorf("%s not found", r)
	}
	parentRaw, _ := json.Marshal(parent)
	related := metacontroller.ObjectMap{}
	if c.Customize != nil {
		resp, err := c.Customize(&metacontroller.CustomizeRequest{Parent: parentRaw})
		if err != nil {
			return nil, fmt.Errorf("customize %s: %w", r, err)
		}
		for _, rr := range resp.RelatedResources {
			if err := w.addRelated(related, rr, r.Namespace); err != nil {
				return nil, fmt.Errorf("customize %s: %w", r, err)
			}
		}
	}
	uid, _ := metadataOf(parent)["uid"].(string)
	children := metacontroller.ObjectMap{}
	for _, t := range c.Children {
		children[metacontroller.Key(t.Kind, t.APIVersion)] = map[string]json.RawMessage{}
	}
	for _, cr := range SortedRefs(w.objects) {
		o := w.objects[cr]
		key := metacontroller.Key(cr.Kind, cr.APIVersion)
		if m, declared := children[key]; declared && controllerUID(o) == uid {
			m[cr.Name], _ = json.Marshal(o)
		}
	}
	return &metacontroller.SyncRequest{Parent: parentRaw, Children: children, Related: related}, nil
}

// addRelated selects objects the way Metacontroller serves a customize answer.
func (w *World) addRelated(into metacontroller.ObjectMap, rr metacontroller.RelatedResource, parentNS string) error {
	kind, ok := resourceKinds[rr.Resource]
	if !ok {
		return fmt.Errorf("unknown resource %q", rr.Resource)
	}
	ns := rr.Namespace
	if ns == "" {
		ns = parentNS
	}
	var sel labels.Selector
	if rr.LabelSelector != nil {
		s, err := metav1.LabelSelectorAsSelector(rr.LabelSelector)
		if err != nil {
			return err
		}
		sel = s
	}
	names := map[string]bool{}
	for _, n := range rr.Names {
		names[n] = true
	}
	key := metacontroller.Key(kind, rr.APIVersion)
	if into[key] == nil {
		into[key] = map[string]json.RawMessage{}
	}
	for _, r := range SortedRefs(w.objects) {
		if r.Kind != kind || r.APIVersion != rr.APIVersion || r.Namespace != ns {
			continue
		}
		o := w.objects[r]
		switch {
		case len(rr.Names) > 0 && !names[r.Name]:
			continue
		case sel != nil && !sel.Matches(labels.Set(labelsOf(o))):
			continue
		}
		into[key][r.Name], _ = json.Marshal(o)
	}
	return nil
}

// applySync writes the status and the children: children a sync stops
// returning are deleted, the others applied whole with the last-applied
// record Metacontroller keeps.
func (w *World) applySync(c Controller, r Ref, parent Object, observed metacontroller.ObjectMap, resp *metacontroller.SyncResponse) error {
	uid, _ := metadataOf(parent)["uid"].(string)
	desired := map[Ref]Object{}
	for i, child := range resp.Children {
		o, ok := toJSONShape(child).(map[string]any)
		if !ok {
			return fmt.Errorf("sync %s: child %d is not an object", r, i)
		}
		cr := RefOf(o)
		if cr.Namespace == "" {
			cr.Namespace = r.Namespace
			metadataOf(o)["namespace"] = r.Namespace
		}
		if cr.Namespace != r.Namespace {
			return fmt.Errorf("sync %s: child %s is in another namespace", r, cr)
		}
		if _, declared := observed[metacontroller.Key(cr.Kind, cr.APIVersion)]; !declared {
			return fmt.Errorf("sync %s: child %s is not of a declared child type", r, cr)
		}
		if _, dup := desired[cr]; dup {
			return fmt.Errorf("sync %s: child %s returned twice", r, cr)
		}
		desired[cr] = o
	}
	for key, objs := range observed {
		for name := range objs {
			kind, apiVersion, _ := strings.Cut(key, ".")
			cr := Ref{APIVersion: apiVersion, Kind: kind, Namespace: r.Namespace, Name: name}
			if _, keep := desired[cr]; !keep {
				w.Delete(cr)
			}
		}
	}
	for _, cr := range SortedRefs(desired) {
		o := desired[cr]
		meta := metadataOf(o)
		l, _ := meta["labels"].(map[string]any)
		if l == nil {
			l = map[string]any{}
		}
		l["controller-uid"] = uid
		meta["labels"] = l
		applied, _ := json.Marshal(o)
		ann, _ := meta["annotations"].(map[string]any)
		if ann == nil {
			ann = map[string]any{}
		}
		ann[metacontroller.LastAppliedAnnotation] = string(applied)
		meta["annotations"] = ann
		meta["ownerReferences"] = []any{map[string]any{
			"apiVersion": r.APIVersion, "kind": r.Kind, "name": r.Name, "uid": uid,
			"controller": true, "blockOwnerDeletion": true,
		}}
		if existing, ok := w.objects[cr]; ok && controllerUID(existing) != uid {
			return fmt.Errorf("sync %s: child %s exists and belongs to another owner", r, cr)
		}
		if err := w.Apply(o); err != nil {
			return fmt.Errorf("sync %s: %w", r, err)
		}
	}
	status := toJSONShape(resp.Status)
	if m, ok := status.(map[string]any); ok {
		m["observedGeneration"] = toInt(metadataOf(parent)["generation"])
	}
	w.SetStatus(r, status)
	return nil
}

func labelsOf(o Object) map[string]string {
	out := map[string]string{}
	l, _ := metadataOf(o)["labels"].(map[string]any)
	for k, v := range l {
		s, _ := v.(string)
		out[k] = s
	}
	return out
}
