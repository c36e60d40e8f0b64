package render

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/glance/observe"
)

// observedConfigMaps are hashed ConfigMaps as Metacontroller hands them
// over: name -> creation time, each with its last-applied record.
func observedConfigMaps(t *testing.T, created map[string]string) metacontroller.ObjectMap {
	t.Helper()
	objs := map[string]json.RawMessage{}
	for name, at := range created {
		applied := fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":%q}}`, name)
		raw, err := json.Marshal(map[string]any{
			"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": name, "uid": "u-" + name, "creationTimestamp": at,
				"annotations": map[string]string{metacontroller.LastAppliedAnnotation: applied}},
		})
		if err != nil {
			t.Fatal(err)
		}
		objs[name] = raw
	}
	return metacontroller.ObjectMap{names.ConfigMapsKey: objs}
}

func TestRetained(t *testing.T) {
	observed := map[string]string{
		"g-config-new":   "2026-01-01T00:00:05Z",
		"g-config-mount": "2026-01-01T00:00:04Z",
		"g-config-3":     "2026-01-01T00:00:03Z",
		"g-config-2b":    "2026-01-01T00:00:02Z",
		"g-config-2a":    "2026-01-01T00:00:02Z",
		"g-config-1":     "2026-01-01T00:00:01Z",
		"g-job-mount":    "2026-01-01T00:00:00Z",
		"other":          "2026-01-01T00:00:06Z",
	}
	type args struct {
		desired string
		mounted []string
		rolling bool
	}
	cases := map[string]struct {
		reason string
		args   args
		want   []string
	}{
		"RolledOut": {
			reason: "once every pod runs the current template, only what it mounts stays besides the desired one",
			args:   args{desired: "g-config-new", mounted: []string{"g-config-mount"}},
			want:   []string{"g-config-mount"},
		},
		"Rolling": {
			reason: "while a rollout runs, the HistoryLimit newest others stay too, newest first, ties by name; an object without the prefix is not history",
			args:   args{desired: "g-config-new", mounted: []string{"g-config-mount"}, rolling: true},
			want:   []string{"g-config-mount", "g-config-3", "g-config-2b", "g-config-2a"},
		},
		"DesiredIsMounted": {
			reason: "the desired object is returned by the sync itself, never as history",
			args:   args{desired: "g-config-mount", mounted: []string{"g-config-mount"}},
		},
		"MountedByAJob": {
			reason: "an unfinished schema Job's pods may still start and mount its config, however old",
			args:   args{desired: "g-config-new", mounted: []string{"g-config-mount", "g-job-mount"}},
			want:   []string{"g-config-mount", "g-job-mount"},
		},
		"NothingMounted": {
			reason: "without a Deployment nothing running can still need an older config",
			args:   args{desired: "g-config-new"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			children := observedConfigMaps(t, observed)
			h := HashedKind{Key: names.ConfigMapsKey, Observed: observe.ObserveHashed(children, names.ConfigMapsKey, "g-", tc.args.mounted), Desired: tc.args.desired, Mounted: tc.args.mounted}
			kept, err := Retained(observe.Applied(children), h, tc.args.rolling)
			if err != nil {
				t.Fatalf("%s\nretained(...): %v", tc.reason, err)
			}
			var got []string
			for _, k := range kept {
				var o struct {
					Metadata struct {
						Name string `json:"name"`
						UID  string `json:"uid"`
					} `json:"metadata"`
				}
				if err := json.Unmarshal(k.(json.RawMessage), &o); err != nil {
					t.Fatal(err)
				}
				if o.Metadata.UID != "" {
					t.Errorf("%s is kept with its server fields; it must be returned as last applied", o.Metadata.Name)
				}
				got = append(got, o.Metadata.Name)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nretained(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestRolledOut(t *testing.T) {
	two := int32(2)
	deploy := func(gen, observed int64, updated, replicas, available int32) *appsv1.Deployment {
		d := &appsv1.Deployment{}
		d.Generation, d.Spec.Replicas = gen, &two
		d.Status.ObservedGeneration = observed
		d.Status.UpdatedReplicas, d.Status.Replicas, d.Status.AvailableReplicas = updated, replicas, available
		return d
	}
	cases := map[string]struct {
		reason string
		d      *appsv1.Deployment
		want   bool
	}{
		"Done":            {reason: "every replica updated and available", d: deploy(3, 3, 2, 2, 2), want: true},
		"NotObservedYet":  {reason: "a template the controller has not seen yet is not rolled out", d: deploy(3, 2, 2, 2, 2)},
		"OldPodsLeft":     {reason: "a surge pod means an old one still runs", d: deploy(3, 3, 2, 3, 2)},
		"NotAllUpdated":   {reason: "an old pod may still mount the old config", d: deploy(3, 3, 1, 2, 2)},
		"NotAllAvailable": {reason: "a new pod that is not available yet", d: deploy(3, 3, 2, 2, 1)},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := RolledOut(tc.d); got != tc.want {
				t.Errorf("%s\nrolledOut(...) = %t, want %t", tc.reason, got, tc.want)
			}
		})
	}
}
