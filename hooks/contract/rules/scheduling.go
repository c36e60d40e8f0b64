package rules

import (
	"bytes"
	"encoding/json"
	"maps"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/excerpt"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/contract/problem"
)

// schedulingProblems checks the deployment block as written (raw, null
// when absent). The CRD keeps an affinity as written, so here the block is
// decoded as the pod spec's types, refusing a field those do not have, and
// the spread constraints (typed in the CRD as the pod spec's) are held to
// what the API server's Deployment validation wants: otherwise
// Metacontroller's every update of the Deployment would fail. glance is the
// name of the Glance whose pods they spread.
func schedulingProblems(raw json.RawMessage, glance string) problem.List {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil
	}
	at := field.NewPath("deployment")
	var s api.DeploymentSpec
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		// encoding/json names an unknown field as `json: unknown field "x"`.
		if name, ok := strings.CutPrefix(err.Error(), `json: unknown field `); ok {
			unquoted, uerr := strconv.Unquote(name)
			if uerr == nil {
				return problem.List{problem.At(at, "has a field neither the reference's deployment block nor the pod spec's scheduling has: %s", excerpt.Kind(unquoted))}
			}
		}
		return problem.List{problem.At(at, "is not a deployment block: %s", hook.DescribeJSONError(err))}
	}
	var l problem.List
	spread := at.Child("topologySpreadConstraints")
	for i, c := range s.TopologySpreadConstraints {
		if c.MaxSkew < 1 {
			l = append(l, problem.Invalid(spread.Index(i).Child("maxSkew"), "must be at least 1"))
		}
		if c.TopologyKey == "" {
			l = append(l, problem.Required(spread.Index(i).Child("topologyKey")))
		}
		if c.WhenUnsatisfiable != corev1.DoNotSchedule && c.WhenUnsatisfiable != corev1.ScheduleAnyway {
			l = append(l, problem.Invalid(spread.Index(i).Child("whenUnsatisfiable"), "must be DoNotSchedule or ScheduleAnyway"))
		}
		l = append(l, spreadSelectorProblems(spread.Index(i).Child("labelSelector"), c.LabelSelector, glance)...)
	}
	return l
}

// spreadSelectorProblems holds a spread constraint's labelSelector to the
// Deployment's selector, as the reference does: a selector of other pods
// spreads the wrong ones. The reference's own selector, the Glance's name
// and instance without the component, is taken too, so a CR written for
// the reference applies unchanged (it also counts the Glance's Job pods
// while they run, as it does there). A constraint without one gets the
// Deployment's selector from the Glance hook, so that is not refused; nor
// is anything while the Glance has no name, which is refused on its own.
func spreadSelectorProblems(at *field.Path, s *metav1.LabelSelector, glance string) problem.List {
	if s == nil || glance == "" {
		return nil
	}
	var l problem.List
	want := names.APISelectorLabels(glance)
	reference := map[string]string{names.LabelName: names.AppGlance, names.LabelInstance: glance}
	if !maps.Equal(s.MatchLabels, want) && !maps.Equal(s.MatchLabels, reference) {
		l = append(l, problem.At(at, "labelSelector.matchLabels must equal the Deployment selector labels %v", want))
	}
	if len(s.MatchExpressions) > 0 {
		l = append(l, problem.At(at.Child("matchExpressions"), "matchExpressions are not allowed; labelSelector must use matchLabels only"))
	}
	return l
}

// rawScheduling is the deployment object under the given path of an
// object as written (null when absent or when the object does not decode:
// the typed decode reports that).
func rawScheduling(object []byte, path ...string) json.RawMessage {
	return rawAt(object, append(path, "deployment")...)
}
