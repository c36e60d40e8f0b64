package controlplane

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
)

// entryToChild names the fields a GlanceBackend holds under another name
// than the backends[] entry it is projected from; every other entry field
// must arrive under its own name.
var entryToChild = map[string]string{
	"name":        "storeId",
	"s3.endpoint": "s3.host",
}

// entryRefused are entry fields declared only to be refused (a
// GlanceBackend's name for the S3 address, api.MisnamedS3Host): admission
// never lets one reach the projection.
var entryRefused = map[string]bool{"s3.host": true}

// TestProjectionCarriesEveryEntryField gives every field of a backends[]
// entry a value of its own, projects the entry, and looks for each value in
// the child's spec. The entry's fields are found by reflection, so a field
// added to the entry (or to api.S3Options) and left out of the projection
// fails here rather than being dropped silently.
func TestProjectionCarriesEveryEntryField(t *testing.T) {
	var entry api.BackendEntry
	fill(reflect.ValueOf(&entry).Elem(), "entry")
	cp := &api.ControlPlane{Spec: api.ControlPlaneSpec{Services: api.Services{Glance: &api.GlanceService{
		Backends: []api.BackendEntry{entry},
	}}}}
	cp.Name, cp.Namespace = "cp", "ns"
	children := project(cp)
	if len(children) != 2 {
		t.Fatalf("project(...): want the Glance and one GlanceBackend, got %d children", len(children))
	}
	child, ok := children[1].(*api.GlanceBackend)
	if !ok {
		t.Fatalf("project(...): second child is %T, want *api.GlanceBackend", children[1])
	}
	want, got := leaves(t, entry), leaves(t, child.Spec)
	paths := make([]string, 0, len(want))
	for p := range want {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		if entryRefused[p] {
			continue
		}
		at := p
		if renamed, ok := entryToChild[p]; ok {
			at = renamed
		}
		if got[at] != want[p] {
			t.Errorf("entry field %s = %s does not reach the GlanceBackend's spec.%s (it holds %s)", p, want[p], at, got[at])
		}
	}
}

// fill sets every field reachable from v to a non-zero value derived from
// its path, allocating pointers and maps on the way.
func fill(v reflect.Value, path string) {
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), path)
	case reflect.Struct:
		for i := range v.NumField() {
			fill(v.Field(i), path+"."+v.Type().Field(i).Name)
		}
	case reflect.String:
		v.SetString(path)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int32, reflect.Int64:
		v.SetInt(int64(len(path)))
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		key, val := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(key, path+".key")
		fill(val, path+".value")
		v.SetMapIndex(key, val)
	default:
		panic(fmt.Sprintf("fill: %s is a %s; teach the test to fill it", path, v.Kind()))
	}
}

// leaves flattens an object's JSON into "a.b.c" -> JSON value.
func leaves(t *testing.T, obj any) map[string]string {
	t.Helper()
	raw, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	var tree any
	if err := json.Unmarshal(raw, &tree); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		if m, ok := v.(map[string]any); ok {
			for k, child := range m {
				walk(strings.TrimPrefix(prefix+"."+k, "."), child)
			}
			return
		}
		b, _ := json.Marshal(v)
		out[prefix] = string(b)
	}
	walk("", tree)
	return out
}

// TestSecretStoreRefIsProjected: the ControlPlane's External Secrets store
// is the Glance's, as the reference projects it onto every service; none
// set projects none.
func TestSecretStoreRefIsProjected(t *testing.T) {
	cp := &api.ControlPlane{Spec: api.ControlPlaneSpec{Services: api.Services{Glance: &api.GlanceService{}}}}
	cp.Name, cp.Namespace = "cp", "ns"
	if got := GlanceSpec(cp).SecretStoreRef; got != nil {
		t.Errorf("GlanceSpec(...).SecretStoreRef = %+v, want nil without the ControlPlane's", got)
	}
	cp.Spec.SecretStoreRef = &api.SecretStoreRefSpec{Kind: "SecretStore", Name: "tenant"}
	got := GlanceSpec(cp).SecretStoreRef
	if got == nil || *got != *cp.Spec.SecretStoreRef {
		t.Errorf("GlanceSpec(...).SecretStoreRef = %+v, want the ControlPlane's %+v", got, cp.Spec.SecretStoreRef)
	}
}
