// Package perf generates the requests the benchmarks and the load test send:
// the recorded Metacontroller requests kept with the fixtures, and requests
// for Glances with any number of backends, captured from the in-process
// Metacontroller stand-in (simulate/chain) after it converged, so every object
// in them (store Secrets, the backends Secret, the Deployment, statuses) is
// what the hooks themselves produced.
package perf

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/controlplane"
	"github.com/c5c3/glance-hooks/simulate/chain"
)

// Now is the clock the generated worlds run at and the hooks are called with.
var Now = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Hooks are the routes, in the order the tables list them.
var Hooks = []string{"/sync/glance", "/customize/glance", "/sync/glancebackend", "/customize/glancebackend", "/sync/controlplane"}

// Request is one body for one route.
type Request struct {
	Path string
	// Case names where the body came from: "recorded" or "gen-<n>".
	Case string
	Body []byte
}

const namespace = "openstack"

// Recorded returns the requests recorded from a real Metacontroller, as kept
// in test/fixtures/<hook>/recorded-metacontroller/request.json.
func Recorded(root string) ([]Request, error) {
	var out []Request
	for _, path := range Hooks {
		dir := strings.Replace(path[1:], "/", "-", 1) // "/sync/glance" -> "sync-glance"
		body, err := os.ReadFile(filepath.Join(root, "test", "fixtures", dir, "recorded-metacontroller", "request.json"))
		if err != nil {
			return nil, err
		}
		out = append(out, Request{Path: path, Case: "recorded", Body: body})
	}
	return out, nil
}

// Root finds the module root (the directory holding go.mod) from the working
// directory upwards.
func Root() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

func controller(name string) chain.Controller {
	for _, c := range chain.Controllers() {
		if c.Name == name {
			return c
		}
	}
	panic("no controller " + name)
}

func credentials() chain.Object {
	return chain.Object{
		"apiVersion": "v1", "kind": "Secret",
		"metadata":   map[string]any{"name": "s3-credentials", "namespace": namespace},
		"stringData": map[string]any{"access-key-id": "GKexample0001", "secret-access-key": "secretexample0001"},
	}
}

// glanceSecrets are the database and service-user Secrets the Glance names.
func glanceSecrets() []chain.Object {
	return []chain.Object{
		{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "glance-db", "namespace": namespace},
			"stringData": map[string]any{"username": "glance", "password": "db-password-0001"}},
		{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "glance-service-user", "namespace": namespace},
			"stringData": map[string]any{"password": "service-password-0001"}},
	}
}

func glanceSpec() map[string]any {
	return map[string]any{
		"openStackRelease": "2025.2",
		"image":            map[string]any{"repository": "ghcr.io/c5c3/glance", "tag": "2025.2"},
		"database": map[string]any{
			"clusterRef": map[string]any{"name": "openstack-db"}, "database": "glance",
			"secretRef": map[string]any{"name": "glance-db"},
		},
		"cache":            map[string]any{"clusterRef": map[string]any{"name": "openstack-memcached"}},
		"keystoneEndpoint": "http://keystone.openstack.svc.cluster.local:5000/v3",
		"serviceUser": map[string]any{
			"username": "glance", "projectName": "service", "userDomainName": "Default", "projectDomainName": "Default",
			"secretRef": map[string]any{"name": "glance-service-user", "key": "password"},
		},
	}
}

func storeName(i int) string { return fmt.Sprintf("store-%04d", i) }

func s3(i int) map[string]any {
	return map[string]any{
		"bucket":               fmt.Sprintf("glance-images-%04d", i),
		"region":               "garage",
		"credentialsSecretRef": map[string]any{"name": "s3-credentials"},
	}
}

func converge(w *chain.World) error {
	res, err := w.Run(chain.Controllers(), 30)
	if err != nil {
		return err
	}
	if !res.Converged {
		return fmt.Errorf("did not converge in %d rounds", res.Rounds)
	}
	return nil
}

// Glance converges a standalone Glance with n GlanceBackends (the first is
// the default) sharing one credentials Secret, and returns the requests of
// the Glance and GlanceBackend hooks in that state: /sync/glance and
// /customize/glance for the Glance, /sync/glancebackend and
// /customize/glancebackend for its default backend.
func Glance(n int) ([]Request, error) {
	return glanceWorld(n, glanceSpec(), fmt.Sprintf("gen-%d", n), len(Hooks)-1)
}

// GlanceEveryBlock is the Glance of Glance(n) with every feature block set
// (withEveryFeatureBlock), and its /sync/glance request only: the other
// hooks read none of the blocks.
func GlanceEveryBlock(n int) ([]Request, error) {
	out, err := glanceWorld(n, withEveryFeatureBlock(glanceSpec()), EveryBlockCase(n), 1)
	if err != nil {
		return nil, err
	}
	// The request must carry what the blocks render, or it measures a
	// Glance without them.
	var req metacontroller.SyncRequest
	if err := json.Unmarshal(out[0].Body, &req); err != nil {
		return nil, err
	}
	if _, ok := req.Children.Get(names.CronJobsKey, names.DBPurgeCronJobName("glance")); !ok {
		return nil, errors.New("the converged Glance with every feature block has no purge CronJob")
	}
	return out, nil
}

// EveryBlockCase names the requests of GlanceEveryBlock(n).
func EveryBlockCase(n int) string { return fmt.Sprintf("every-%d", n) }

// glanceWorld converges the Glance with spec and n GlanceBackends and
// returns the first routes of its requests, in the order Glance lists them.
func glanceWorld(n int, spec map[string]any, kase string, routes int) ([]Request, error) {
	return glanceWorldNamed("glance", n, spec, kase, routes)
}

// glanceWorldNamed is glanceWorld for a Glance of the given name.
func glanceWorldNamed(name string, n int, spec map[string]any, kase string, routes int) ([]Request, error) {
	w := chain.NewWorld(Now)
	objs := append(glanceSecrets(), credentials(), chain.Object{
		"apiVersion": api.GlanceAPIVersion, "kind": api.KindGlance,
		"metadata": map[string]any{"name": name, "namespace": namespace},
		"spec":     spec,
	})
	for i := 0; i < n; i++ {
		s := s3(i)
		s["host"] = "http://garage.shared-services.svc.cluster.local:3900"
		objs = append(objs, chain.Object{
			"apiVersion": api.GlanceAPIVersion, "kind": api.KindGlanceBackend,
			"metadata": map[string]any{"name": storeName(i), "namespace": namespace},
			"spec": map[string]any{
				"glanceRef": map[string]any{"name": name}, "type": "S3", "isDefault": i == 0, "s3": s,
			},
		})
	}
	for _, o := range objs {
		if err := w.Apply(o); err != nil {
			return nil, err
		}
	}
	if err := converge(w); err != nil {
		return nil, err
	}
	glanceRef := chain.Ref{APIVersion: api.GlanceAPIVersion, Kind: api.KindGlance, Namespace: namespace, Name: name}
	backendRef := chain.Ref{APIVersion: api.GlanceAPIVersion, Kind: api.KindGlanceBackend, Namespace: namespace, Name: storeName(0)}
	var out []Request
	for _, r := range []struct {
		path, controller string
		ref              chain.Ref
	}{
		{"/sync/glance", "glance", glanceRef},
		{"/customize/glance", "glance", glanceRef},
		{"/sync/glancebackend", "glancebackend", backendRef},
		{"/customize/glancebackend", "glancebackend", backendRef},
	}[:routes] {
		body, err := capture(w, r.path, controller(r.controller), r.ref)
		if err != nil {
			return nil, err
		}
		out = append(out, Request{Path: r.path, Case: kase, Body: body})
	}
	return out, nil
}

// ControlPlane converges a ControlPlane with n backends entries (the first
// is the default) and returns its /sync/controlplane request: the parent and
// the projected Glance and n GlanceBackends as observed children. n is at
// most api.MaxBackendEntries: a ControlPlane holding more is refused, and
// its request would measure the refusal, not a sync, so the converged
// ControlPlane must report its Glance projected.
func ControlPlane(n int) (Request, error) {
	w := chain.NewWorld(Now)
	var entries []any
	for i := 0; i < n; i++ {
		s := s3(i)
		s["endpoint"] = "http://garage.shared-services.svc.cluster.local:3900"
		entries = append(entries, map[string]any{"name": storeName(i), "type": "S3", "isDefault": i == 0, "s3": s})
	}
	glance := glanceSpec()
	delete(glance, "openStackRelease")
	glance["backends"] = entries
	cp := chain.Object{
		"apiVersion": api.ControlPlaneAPIVersion, "kind": api.KindControlPlane,
		"metadata": map[string]any{"name": "controlplane", "namespace": namespace},
		"spec":     map[string]any{"openStackRelease": "2025.2", "services": map[string]any{"glance": glance}},
	}
	for _, o := range append(glanceSecrets(), credentials(), cp) {
		if err := w.Apply(o); err != nil {
			return Request{}, err
		}
	}
	if err := converge(w); err != nil {
		return Request{}, err
	}
	ref := chain.Ref{APIVersion: api.ControlPlaneAPIVersion, Kind: api.KindControlPlane, Namespace: namespace, Name: "controlplane"}
	if err := projected(w, ref); err != nil {
		return Request{}, err
	}
	body, err := capture(w, "/sync/controlplane", controller("controlplane-glance"), ref)
	if err != nil {
		return Request{}, err
	}
	return Request{Path: "/sync/controlplane", Case: fmt.Sprintf("gen-%d", n), Body: body}, nil
}

// projected fails unless the ControlPlane at ref reports GlanceProjected
// True, saying what it reports instead.
func projected(w *chain.World, ref chain.Ref) error {
	o, ok := w.Get(ref)
	if !ok {
		return errors.New("the ControlPlane is gone")
	}
	raw, err := json.Marshal(o["status"])
	if err != nil {
		return err
	}
	var st api.ControlPlaneStatus
	if err := json.Unmarshal(raw, &st); err != nil {
		return err
	}
	c := meta.FindStatusCondition(st.Conditions, controlplane.CondGlanceProjected)
	switch {
	case c == nil:
		return fmt.Errorf("the converged ControlPlane reports no %s condition", controlplane.CondGlanceProjected)
	case c.Status != metav1.ConditionTrue:
		return fmt.Errorf("the converged ControlPlane did not project its Glance: %s=%s/%s: %s", c.Type, c.Status, c.Reason, c.Message)
	}
	return nil
}

// capture builds the body Metacontroller would post to path for the parent.
func capture(w *chain.World, path string, c chain.Controller, ref chain.Ref) ([]byte, error) {
	req, err := w.SyncRequest(c, ref)
	if err != nil {
		return nil, err
	}
	if strings.HasPrefix(path, "/customize/") { // a customize request carries the parent only
		return json.Marshal(metacontroller.CustomizeRequest{Parent: req.Parent})
	}
	return json.Marshal(req)
}

// Sizes names generated worlds: a standalone Glance with each count of
// GlanceBackends, and a ControlPlane with each count of backends entries (at
// most api.MaxBackendEntries).
type Sizes struct {
	Glance       []int
	ControlPlane []int
	// EveryBlock are the GlanceEveryBlock worlds.
	EveryBlock []int
	// Full are the GlanceFull worlds: the guide's Glance with every
	// optional feature on.
	Full []int
}

// key names the sizes in a cache file's name.
func (s Sizes) key() string {
	join := func(ns []int) string {
		if len(ns) == 0 {
			return "none"
		}
		var set []string
		for _, n := range ns {
			set = append(set, strconv.Itoa(n))
		}
		return strings.Join(set, "-")
	}
	key := "gen-glance-" + join(s.Glance) + "-controlplane-" + join(s.ControlPlane)
	if len(s.EveryBlock) > 0 {
		key += "-every-" + join(s.EveryBlock)
	}
	if len(s.Full) > 0 {
		key += "-full-" + join(s.Full)
	}
	return key
}

// Generated returns every generated request: for each Glance size the
// requests Glance returns, then the /sync/controlplane request of each
// ControlPlane size. Worlds are built concurrently.
//
// Converging a thousand-backend world still takes seconds, so the requests
// are kept in root/.cache/perf, under a hash of everything they depend on
// (the hook sources, this generator and the module's dependencies), one
// file per set of sizes; any change to those builds them again and removes
// the stale file.
func Generated(root string, sizes Sizes) ([]Request, error) {
	key, err := sourceHash(root, sizes)
	if err != nil {
		return nil, err
	}
	prefix := sizes.key() + "-"
	cache := filepath.Join(root, ".cache", "perf", prefix+key+".json")
	// Glance answers every route but /sync/controlplane.
	want := len(sizes.Glance)*(len(Hooks)-1) + len(sizes.ControlPlane) + len(sizes.EveryBlock) + 2*len(sizes.Full)
	if raw, err := os.ReadFile(cache); err == nil {
		var out []Request
		if json.Unmarshal(raw, &out) == nil && len(out) == want {
			return out, nil
		}
	}
	out, err := sizes.build()
	if err != nil {
		return nil, err
	}
	if raw, err := json.Marshal(out); err == nil && os.MkdirAll(filepath.Dir(cache), 0o755) == nil {
		// Requests for the same sizes from older sources are dead weight
		// (the 1000-backend set is 12 MB). A cache that cannot be written
		// or pruned only costs time.
		old, _ := filepath.Glob(filepath.Join(filepath.Dir(cache), prefix+strings.Repeat("?", len(key))+".json"))
		for _, f := range old {
			_ = os.Remove(f)
		}
		_ = os.WriteFile(cache, raw, 0o644)
	}
	return out, nil
}

// build converges every world of s at once and returns their requests in
// Generated's order: the Glance sizes, the ControlPlane sizes, the
// EveryBlock worlds, then the Full worlds.
func (s Sizes) build() ([]Request, error) {
	var worlds []func() ([]Request, error)
	for _, n := range s.Glance {
		worlds = append(worlds, world(Glance, n, "glance with %d backends"))
	}
	for _, n := range s.ControlPlane {
		worlds = append(worlds, world(func(n int) ([]Request, error) {
			cp, err := ControlPlane(n)
			return []Request{cp}, err
		}, n, "controlplane with %d backends entries"))
	}
	for _, n := range s.EveryBlock {
		worlds = append(worlds, world(GlanceEveryBlock, n, "glance with every feature block and %d backends"))
	}
	for _, n := range s.Full {
		worlds = append(worlds, world(GlanceFull, n, "the guide's Glance with every optional feature and %d backends"))
	}
	results := make([][]Request, len(worlds))
	errs := make([]error, len(worlds))
	var wg sync.WaitGroup
	for i, w := range worlds {
		wg.Go(func() { results[i], errs[i] = w() })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	var out []Request
	for _, r := range results {
		out = append(out, r...)
	}
	return out, nil
}

// world is one generator run for size n, its error naming the world by
// what (a format with n's verb).
func world(gen func(int) ([]Request, error), n int, what string) func() ([]Request, error) {
	return func() ([]Request, error) {
		out, err := gen(n)
		if err != nil {
			return out, fmt.Errorf(what+": %w", n, err)
		}
		return out, nil
	}
}

// sourceHash hashes the sizes and every file a generated request
// depends on: the Go files of the module's packages simulate/chain is built
// from (all of hooks/ if go list cannot say), this generator and go.sum.
func sourceHash(root string, sizes Sizes) (string, error) {
	dirs := chainPackageDirs(root)
	if dirs == nil {
		dirs = []string{filepath.Join(root, "hooks")}
	}
	var files []string
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
				files = append(files, path)
			}
			return err
		})
		if err != nil {
			return "", err
		}
	}
	files = append(files, filepath.Join(root, "test", "perf", "gen.go"), filepath.Join(root, "test", "perf", "blocks.go"),
		filepath.Join(root, "test", "perf", "full.go"), filepath.Join(root, "test", "guide", "guide.go"), filepath.Join(root, "go.sum"))
	sort.Strings(files)
	files = slices.Compact(files)
	h := sha256.New()
	fmt.Fprintln(h, sizes.key())
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		rel, _ := filepath.Rel(root, f)
		fmt.Fprintf(h, "%s %d\n", filepath.ToSlash(rel), len(raw))
		h.Write(raw)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// chainPackageDirs lists the directories of this module's packages that
// simulate/chain imports, itself included, or nil when go list fails.
func chainPackageDirs(root string) []string {
	cmd := exec.Command("go", "list", "-deps", "-f", "{{if .Module}}{{if .Module.Main}}{{.Dir}}{{end}}{{end}}", "./simulate/chain")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return nil
	}
	var dirs []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if line != "" {
			dirs = append(dirs, line)
		}
	}
	return dirs
}
