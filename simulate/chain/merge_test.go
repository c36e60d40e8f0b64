package chain

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
)

// withLastApplied is an observed object whose last-applied record is last.
func withLastApplied(o, last Object) Object {
	o = deepCopy(o)
	raw, _ := json.Marshal(last)
	metadataOf(o)["annotations"] = map[string]any{metacontroller.LastAppliedAnnotation: string(raw)}
	return o
}

func TestMergeApplied(t *testing.T) {
	type want struct {
		// merged is the merged object without its last-applied record.
		merged  Object
		changed bool
	}
	cm := func(data map[string]any) Object {
		return Object{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "c"}, "data": data}
	}
	cases := map[string]struct {
		reason            string
		observed, desired Object
		want              want
	}{
		"SameAnswerNoWrite": {
			reason:   "an answer equal to the last applied one merges to the observed object: no write",
			observed: withLastApplied(cm(map[string]any{"a": "1"}), cm(map[string]any{"a": "1"})),
			desired:  cm(map[string]any{"a": "1"}),
			want:     want{merged: cm(map[string]any{"a": "1"})},
		},
		"RemovedKey": {
			reason:   "a key the last answer had and this one lacks is removed",
			observed: withLastApplied(cm(map[string]any{"a": "1", "b": "2"}), cm(map[string]any{"a": "1", "b": "2"})),
			desired:  cm(map[string]any{"a": "1"}),
			want:     want{merged: cm(map[string]any{"a": "1"}), changed: true},
		},
		"OthersFieldsKept": {
			reason: "a field the hook never set (a server default, another writer's) stays, " +
				"so it causes no write",
			observed: withLastApplied(Object{"kind": "Deployment", "metadata": map[string]any{"name": "d"},
				"spec": map[string]any{"replicas": int64(1), "revisionHistoryLimit": int64(10)}},
				Object{"kind": "Deployment", "metadata": map[string]any{"name": "d"}, "spec": map[string]any{"replicas": int64(1)}}),
			desired: Object{"kind": "Deployment", "metadata": map[string]any{"name": "d"}, "spec": map[string]any{"replicas": int64(1)}},
			want: want{merged: Object{"kind": "Deployment", "metadata": map[string]any{"name": "d"},
				"spec": map[string]any{"replicas": int64(1), "revisionHistoryLimit": int64(10)}}},
		},
		"ListOfNamedItems": {
			reason: "items with a name are merged by name: the observed order stays, new items come last, " +
				"fields only the cluster set stay",
			observed: withLastApplied(Object{"kind": "K", "metadata": map[string]any{"name": "k"}, "items": []any{
				map[string]any{"name": "b", "v": "1", "default": "x"}, map[string]any{"name": "a", "v": "1"},
			}}, Object{"kind": "K", "metadata": map[string]any{"name": "k"}, "items": []any{
				map[string]any{"name": "b", "v": "1"}, map[string]any{"name": "a", "v": "1"},
			}}),
			desired: Object{"kind": "K", "metadata": map[string]any{"name": "k"}, "items": []any{
				map[string]any{"name": "a", "v": "2"}, map[string]any{"name": "c", "v": "1"}, map[string]any{"name": "b", "v": "1"},
			}},
			want: want{merged: Object{"kind": "K", "metadata": map[string]any{"name": "k"}, "items": []any{
				map[string]any{"name": "b", "v": "1", "default": "x"}, map[string]any{"name": "a", "v": "2"}, map[string]any{"name": "c", "v": "1"},
			}}, changed: true},
		},
		"PlainListReplaced": {
			reason:   "a list of scalars is replaced whole",
			observed: withLastApplied(Object{"kind": "K", "metadata": map[string]any{"name": "k"}, "args": []any{"a", "b"}}, Object{"kind": "K", "metadata": map[string]any{"name": "k"}, "args": []any{"a", "b"}}),
			desired:  Object{"kind": "K", "metadata": map[string]any{"name": "k"}, "args": []any{"b"}},
			want:     want{merged: Object{"kind": "K", "metadata": map[string]any{"name": "k"}, "args": []any{"b"}}, changed: true},
		},
		"ServerFieldsAndStatusStay": {
			reason: "server-owned metadata and the status are never changed by an update",
			observed: withLastApplied(Object{"kind": "K", "metadata": map[string]any{"name": "k", "uid": "u1", "resourceVersion": "7"},
				"status": map[string]any{"ready": true}}, Object{"kind": "K", "metadata": map[string]any{"name": "k"}}),
			desired: Object{"kind": "K", "metadata": map[string]any{"name": "k", "uid": "other", "resourceVersion": "1"},
				"status": map[string]any{"ready": false}},
			want: want{merged: Object{"kind": "K", "metadata": map[string]any{"name": "k", "uid": "u1", "resourceVersion": "7"},
				"status": map[string]any{"ready": true}}, changed: true},
		},
		"NoLastApplied": {
			reason:   "without a last-applied record nothing is removed; the desired fields are set",
			observed: cm(map[string]any{"a": "1", "b": "2"}),
			desired:  cm(map[string]any{"a": "3"}),
			want:     want{merged: cm(map[string]any{"a": "3", "b": "2"}), changed: true},
		},
		"OtherTypeCountsAsAbsent": {
			reason: "a desired value of another type than the observed object's counts as absent, " +
				"as in Metacontroller: the keys last applied are removed, nothing is set",
			observed: withLastApplied(Object{"kind": "K", "metadata": map[string]any{"name": "k"}, "spec": map[string]any{"a": "1", "b": "2"}},
				Object{"kind": "K", "metadata": map[string]any{"name": "k"}, "spec": map[string]any{"a": "1"}}),
			desired: Object{"kind": "K", "metadata": map[string]any{"name": "k"}, "spec": "text"},
			want:    want{merged: Object{"kind": "K", "metadata": map[string]any{"name": "k"}, "spec": map[string]any{"b": "2"}}, changed: true},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			merged, err := mergeApplied(tc.observed, tc.desired)
			if err != nil {
				t.Fatalf("%s\nmergeApplied: %v", tc.reason, err)
			}
			raw, _ := json.Marshal(tc.desired)
			if got := annotationsOf(merged)[metacontroller.LastAppliedAnnotation]; got != string(raw) {
				t.Errorf("%s\nthe last-applied record is %v, want the desired object %s", tc.reason, got, raw)
			}
			changed := !cmp.Equal(merged, tc.observed)
			delete(annotationsOf(merged), metacontroller.LastAppliedAnnotation)
			if len(annotationsOf(merged)) == 0 {
				delete(metadataOf(merged), "annotations")
			}
			if diff := cmp.Diff(tc.want.merged, merged); diff != "" {
				t.Errorf("%s\nmergeApplied(...): -want, +got:\n%s", tc.reason, diff)
			}
			if changed != tc.want.changed {
				t.Errorf("%s\nwritten: %v, want %v", tc.reason, changed, tc.want.changed)
			}
		})
	}
}
