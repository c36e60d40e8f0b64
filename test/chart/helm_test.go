// Package chart tests the Helm chart in charts/glance-hooks, the plain
// CompositeControllers in metacontroller/ rendered from it, the Dockerfile, and
// the chart installed on a real kube-apiserver.
package chart

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/c5c3/glance-hooks/test/testcert"
)

// repoRoot is the repository's top directory (this package is test/chart).
func repoRoot(t testing.TB) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	return root
}

func chartDir(t testing.TB) string { return filepath.Join(repoRoot(t), "charts", "glance-hooks") }

// helmBin finds the helm CLI: $HELM (make test sets it and then it must
// exist), else the one `make helm` caches, else helm on PATH. Without any,
// the chart tests skip: run `make helm` (make test does).
func helmBin(t testing.TB) string {
	t.Helper()
	if h := os.Getenv("HELM"); h != "" {
		_, err := os.Stat(h)
		require.NoError(t, err, "HELM=%s does not exist; run `make helm`", h)
		return h
	}
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache")
	}
	if h := filepath.Join(cache, "glance-hooks", "bin", "helm"); fileExists(h) {
		return h
	}
	if h, err := exec.LookPath("helm"); err == nil {
		return h
	}
	t.Skip("helm is not installed: run `make helm` (make test does it)")
	return ""
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// runHelm runs helm with args and returns stdout; stderr goes into the error.
func runHelm(t testing.TB, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(helmBin(t), args...)
	cmd.Dir = repoRoot(t)
	// Keep helm away from the user's repositories, plugins and caches.
	home := t.TempDir()
	cmd.Env = append(os.Environ(),
		"HELM_CACHE_HOME="+filepath.Join(home, "cache"),
		"HELM_CONFIG_HOME="+filepath.Join(home, "config"),
		"HELM_DATA_HOME="+filepath.Join(home, "data"),
	)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("helm %s: %w\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String(), nil
}

// release is one `helm template` of the chart.
type release struct {
	Name, Namespace string
	Set             []string // --set key=value
	Objects         []obj
}

// render runs `helm template` with the release's name, namespace and --set
// values and decodes every object it prints.
func render(t testing.TB, name, namespace string, set ...string) *release {
	t.Helper()
	out, err := renderRaw(t, name, namespace, set...)
	require.NoError(t, err)
	objs, err := decodeObjects([]byte(out))
	require.NoError(t, err)
	return &release{Name: name, Namespace: namespace, Set: set, Objects: objs}
}

func renderRaw(t testing.TB, name, namespace string, set ...string) (string, error) {
	args := []string{"template", name, chartDir(t), "--namespace", namespace, "--include-crds"}
	for _, s := range set {
		if strings.HasPrefix(s, "--") {
			// A helm flag of its own, e.g. --set-file=key=path.
			args = append(args, s)
			continue
		}
		args = append(args, "--set", s)
	}
	return runHelm(t, args...)
}

// testCA is a CA certificate (PEM) for values that take one, and a file
// holding it for --set-file; the file is removed when the tests end.
var testCA = sync.OnceValues(func() (pem, path string) {
	pair, err := testcert.New("platform-ca")
	if err != nil {
		panic(err)
	}
	dir, err := os.MkdirTemp("", "glance-hooks-chart-ca-")
	if err != nil {
		panic(err)
	}
	testCADir = dir
	path = filepath.Join(dir, "ca.crt")
	if err := os.WriteFile(path, pair.CertPEM, 0o600); err != nil {
		panic(err)
	}
	return string(pair.CertPEM), path
})

var testCADir string

// obj is one rendered Kubernetes object as generic JSON.
type obj map[string]any

func (o obj) kind() string      { s, _ := o["kind"].(string); return s }
func (o obj) name() string      { return str(o, "metadata", "name") }
func (o obj) namespace() string { return str(o, "metadata", "namespace") }
func (o obj) id() string        { return o.kind() + " " + o.namespace() + "/" + o.name() }

// into converts the object into a typed struct (k8s.io/api types).
func (o obj) into(t testing.TB, v any) {
	t.Helper()
	raw, err := json.Marshal(o)
	require.NoError(t, err)
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(v), "%s does not decode strictly into %T", o.id(), v)
}

// get walks nested maps.
func get(o map[string]any, path ...string) any {
	var cur any = o
	for _, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[p]
	}
	return cur
}

func str(o map[string]any, path ...string) string {
	s, _ := get(o, path...).(string)
	return s
}

func decodeObjects(raw []byte) ([]obj, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(raw), 4096)
	var out []obj
	for {
		var o obj
		err := dec.Decode(&o)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(o) == 0 {
			continue
		}
		out = append(out, o)
	}
	return out, nil
}

// find returns the objects of a kind.
func (r *release) find(kind string) []obj {
	var out []obj
	for _, o := range r.Objects {
		if o.kind() == kind {
			out = append(out, o)
		}
	}
	return out
}

// one returns the only object of a kind, failing otherwise.
func (r *release) one(t testing.TB, kind string) obj {
	t.Helper()
	objs := r.find(kind)
	require.Len(t, objs, 1, "want exactly one %s, got %v", kind, ids(objs))
	return objs[0]
}

// named returns the object of a kind and name.
func (r *release) named(t testing.TB, kind, name string) obj {
	t.Helper()
	for _, o := range r.find(kind) {
		if o.name() == name {
			return o
		}
	}
	require.Failf(t, "object missing", "no %s named %q in %v", kind, name, ids(r.Objects))
	return nil
}

func ids(objs []obj) []string {
	out := make([]string, 0, len(objs))
	for _, o := range objs {
		out = append(out, o.id())
	}
	sort.Strings(out)
	return out
}
