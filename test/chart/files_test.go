package chart

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/c5c3/glance-hooks/internal/image"
)

// mustRead reads a file relative to the repository root. t may be nil.
func mustRead(t testing.TB, rel string) []byte {
	raw, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(rel)))
	if t == nil {
		if err != nil {
			panic(err)
		}
		return raw
	}
	t.Helper()
	require.NoError(t, err)
	return raw
}

func mustReadAbs(t testing.TB, path string) []byte {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	return raw
}

func yamlFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	paths, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	require.NoError(t, err)
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		require.NoError(t, err)
		out[filepath.Base(p)] = raw
	}
	return out
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// The chart ships schemas/ unchanged: charts/glance-hooks/files/crds/ is a
// copy that `make chart-crds` refreshes, and the rendered CRDs have exactly
// their spec. The chart has no crds/: Helm would install it once and never
// upgrade it.
func TestChartCRDsMatchSchemas(t *testing.T) {
	root := repoRoot(t)
	assert.NoDirExists(t, filepath.Join(chartDir(t), "crds"), "CRDs are templates, so helm upgrade updates them")
	crds := yamlFiles(t, filepath.Join(chartDir(t), "files", "crds"))
	schemas := yamlFiles(t, filepath.Join(root, "schemas"))
	require.NotEmpty(t, schemas, "schemas/ holds no *.yaml")
	require.Equal(t, keys(schemas), keys(crds),
		"charts/glance-hooks/files/crds/ must hold exactly the files of schemas/: run `make chart-crds`")
	for name, want := range schemas {
		assert.True(t, bytes.Equal(want, crds[name]),
			"charts/glance-hooks/files/crds/%s is a stale copy of schemas/%s: run `make chart-crds`", name, name)
	}

	rendered := map[string]obj{}
	for _, o := range render(t, "glance-hooks", "glance-hooks").find("CustomResourceDefinition") {
		rendered[o.name()] = o
	}
	require.Len(t, rendered, len(schemas))
	for name, raw := range schemas {
		objs, err := decodeObjects(raw)
		require.NoError(t, err)
		require.Len(t, objs, 1, name)
		got, ok := rendered[objs[0].name()]
		require.True(t, ok, "the chart renders %s", objs[0].name())
		assert.Equal(t, objs[0]["spec"], got["spec"], "%s: the rendered CRD is schemas/%s", objs[0].name(), name)
		assert.Equal(t, "keep", str(got, "metadata", "annotations", "helm.sh/resource-policy"), "uninstall keeps %s", objs[0].name())
	}
}

// crds.install=false leaves the CRDs out; crds.keep=false drops the keep
// annotation.
func TestChartCRDToggles(t *testing.T) {
	assert.Empty(t, render(t, "glance-hooks", "glance-hooks", "crds.install=false").find("CustomResourceDefinition"))
	for _, o := range render(t, "glance-hooks", "glance-hooks", "crds.keep=false").find("CustomResourceDefinition") {
		assert.Nil(t, get(o, "metadata", "annotations"), o.name())
	}
}

// The CRDs the chart ships define every resource the CompositeControllers,
// the webhook and the RBAC name, with the same group, version and scope.
func TestChartCRDsServeWhatTheChartUses(t *testing.T) {
	crdFiles := yamlFiles(t, filepath.Join(chartDir(t), "files", "crds"))
	require.NotEmpty(t, crdFiles, "the chart ships the CRDs of schemas/")
	served := map[string]string{} // "<group>/<version> <plural>" -> scope
	for name, raw := range crdFiles {
		dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(raw), 4096)
		for {
			var crd crdHead
			if err := dec.Decode(&crd); err != nil {
				break
			}
			if crd.Kind != "CustomResourceDefinition" {
				continue
			}
			for _, v := range crd.Spec.Versions {
				if v.Served {
					served[crd.Spec.Group+"/"+v.Name+" "+crd.Spec.Names.Plural] = crd.Spec.Scope
				}
			}
		}
		require.NotEmpty(t, served, "%s holds no CRD", name)
	}
	for _, want := range []string{
		"c5c3.io/v1alpha1 controlplanes",
		"glance.openstack.c5c3.io/v1alpha1 glances",
		"glance.openstack.c5c3.io/v1alpha1 glancebackends",
	} {
		scope, ok := served[want]
		if assert.True(t, ok, "no CRD serves %s (have %v)", want, keys(served)) {
			assert.Equal(t, "Namespaced", scope, "%s: the webhook rules say scope Namespaced", want)
		}
	}
}

// crdHead is the part of a CustomResourceDefinition these tests read.
type crdHead struct {
	Kind     string `json:"kind"`
	Metadata struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		Group string `json:"group"`
		Scope string `json:"scope"`
		Names struct {
			Plural string `json:"plural"`
			Kind   string `json:"kind"`
		} `json:"names"`
		Versions []struct {
			Name   string `json:"name"`
			Served bool   `json:"served"`
		} `json:"versions"`
	} `json:"spec"`
}

// runCmd runs a command in dir and returns its combined output.
func runCmd(dir, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// metacontroller/ is the chart's CompositeControllers rendered with the
// chart's defaults; the chart templates are the source.
func TestMetacontrollerManifestsMatchChart(t *testing.T) {
	helm := helmBin(t)
	out := t.TempDir()
	_, err := runCmd(repoRoot(t), "bash", "hack/render-metacontroller.sh", helm, out)
	require.NoError(t, err)
	want := yamlFiles(t, out)
	got := yamlFiles(t, filepath.Join(repoRoot(t), "metacontroller"))
	require.Len(t, want, 3, "one file per CompositeController")
	require.Equal(t, keys(want), keys(got), "metacontroller/ must hold the rendered controllers: run `make metacontroller`")
	for name := range want {
		assert.Equal(t, string(want[name]), string(got[name]),
			"metacontroller/%s differs from the chart's template: run `make metacontroller`", name)
	}
	// And they are the controllers a default install registers.
	r := render(t, "glance-hooks", "glance-hooks")
	var fromFiles []obj
	for _, raw := range got {
		objs, err := decodeObjects(raw)
		require.NoError(t, err)
		fromFiles = append(fromFiles, objs...)
	}
	assert.ElementsMatch(t, r.find("CompositeController"), fromFiles)
}

// Every value in values.yaml is described in the chart README's table.
func TestValuesDocumented(t *testing.T) {
	var values map[string]any
	require.NoError(t, utilyaml.Unmarshal(mustRead(t, "charts/glance-hooks/values.yaml"), &values))
	readme := string(mustRead(t, "charts/glance-hooks/README.md"))
	// Maps documented as a whole rather than key by key.
	whole := map[string]bool{
		"hooks.resources": true, "validate.resources": true, "credentials.resources": true, "podSecurityContext": true, "securityContext": true,
		"probes.liveness": true, "probes.readiness": true,
		"networkPolicy.metacontroller.namespaceSelector": true, "networkPolicy.metacontroller.podSelector": true,
	}
	var paths []string
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		m, ok := v.(map[string]any)
		if !ok || len(m) == 0 || whole[prefix] {
			paths = append(paths, prefix)
			return
		}
		for k, sub := range m {
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			walk(p, sub)
		}
	}
	walk("", values)
	sort.Strings(paths)
	require.Greater(t, len(paths), 30)
	for _, p := range paths {
		assert.Contains(t, readme, "| `"+p+"` |", "charts/glance-hooks/README.md documents %s", p)
	}
	// And the README documents nothing that is not a value.
	documented := regexp.MustCompile("(?m)^\\| `([^`]+)` \\|").FindAllStringSubmatch(readme, -1)
	require.NotEmpty(t, documented)
	for _, m := range documented {
		assert.Contains(t, paths, m[1], "README documents %s, which values.yaml does not have", m[1])
	}
}

// The Dockerfile builds a static, reproducible binary into a non-root
// distroless image, from pinned base images.
func TestDockerfile(t *testing.T) {
	df := string(mustRead(t, "Dockerfile"))
	var froms []string
	for _, line := range strings.Split(df, "\n") {
		f := strings.Fields(line)
		if len(f) > 1 && strings.EqualFold(f[0], "FROM") {
			img := f[1]
			if strings.HasPrefix(img, "--platform") {
				img = f[2]
			}
			froms = append(froms, img)
		}
	}
	require.Len(t, froms, 2, "multi-stage: a build stage and the runtime stage")
	for _, img := range froms {
		name, tag, ok := strings.Cut(img, ":")
		assert.True(t, ok && tag != "" && tag != "latest", "%s: base images are pinned", img)
		_ = name
	}
	assert.Regexp(t, `^golang:1\.\d+\.\d+`, froms[0], "the build stage pins a Go patch release")
	assert.Contains(t, froms[1], "distroless/static", "the runtime image is distroless static")
	assert.Contains(t, froms[1], ":nonroot")
	// The binary is built by the one build script make build and make image
	// use, which builds it static and reproducible.
	assert.Regexp(t, `(?m)^RUN .*\\\n\s*hack/build\.sh /out/glance-hooks$`, df)
	build := string(mustRead(t, "hack/build.sh"))
	for _, want := range []string{"CGO_ENABLED=0", "-trimpath", "-buildid=", "-buildvcs=false"} {
		assert.Contains(t, build, want)
	}
	assert.Regexp(t, `(?m)^USER 65532:65532$`, df, "numeric non-root user, so runAsNonRoot can verify it")
	assert.Regexp(t, `(?m)^ENTRYPOINT \["/glance-hooks"\]$`, df, "the chart passes `serve ...` as args to this entrypoint")

	// The chart runs the image as the user the image declares.
	r := render(t, "glance-hooks", "glance-hooks")
	dep := r.one(t, "Deployment")
	assert.EqualValues(t, 65532, get(dep, "spec", "template", "spec", "securityContext", "runAsUser"))

	// make image and the Dockerfile build the same image: its default
	// command is the chart's hooks container and its ports the chart's.
	cmdJSON, err := json.Marshal(image.DefaultCmd)
	require.NoError(t, err)
	assert.Regexp(t, `(?m)^CMD `+regexp.QuoteMeta(strings.ReplaceAll(string(cmdJSON), ",", ", "))+`$`, df)
	var ports []string
	for _, p := range image.Ports {
		ports = append(ports, strings.TrimSuffix(p, "/tcp"))
	}
	assert.Regexp(t, `(?m)^EXPOSE `+strings.Join(ports, " ")+`$`, df)
	for _, label := range []string{`org.opencontainers.image.source="` + image.Source + `"`,
		`org.opencontainers.image.version="$VERSION"`, `org.opencontainers.image.revision="$COMMIT"`} {
		assert.Contains(t, df, label)
	}
	var d appsv1.Deployment
	dep.into(t, &d)
	var chartPorts []string
	for _, c := range d.Spec.Template.Spec.Containers {
		if c.Name == "hooks" {
			assert.Subset(t, c.Args, image.DefaultCmd, "the image's default command is the chart's hooks container")
		}
		for _, p := range c.Ports {
			chartPorts = append(chartPorts, fmt.Sprintf("%d/%s", p.ContainerPort, strings.ToLower(string(p.Protocol))))
		}
	}
	assert.ElementsMatch(t, image.Ports, chartPorts, "the image exposes the chart's container ports")
}

// dockerignored reports whether rel (slash-separated, relative to the
// context root) is left out of the build context by these .dockerignore
// patterns. It covers the forms the file uses: a path or glob from the root
// (matching the entry and everything under it), `**/` for any depth, and
// `!` to take back what an earlier pattern left out (the last match wins).
func dockerignored(patterns []string, rel string) bool {
	parts := strings.Split(rel, "/")
	ignored := false
	for _, pat := range patterns {
		keep := strings.HasPrefix(pat, "!")
		pat = strings.TrimPrefix(pat, "!")
		matched := false
		if sub, ok := strings.CutPrefix(pat, "**/"); ok {
			for _, part := range parts {
				if m, _ := filepath.Match(sub, part); m {
					matched = true
				}
			}
		} else {
			for i := range parts {
				if m, _ := filepath.Match(pat, strings.Join(parts[:i+1], "/")); m {
					matched = true
				}
			}
		}
		if matched {
			ignored = !keep
		}
	}
	return ignored
}

// The image's build context (the repository minus .dockerignore) holds
// everything the binary needs: the Dockerfile's build step succeeds on it.
func TestDockerContextBuilds(t *testing.T) {
	root := repoRoot(t)
	var patterns []string
	for _, line := range strings.Split(string(mustRead(t, ".dockerignore")), "\n") {
		line = strings.TrimSpace(line)
		if line != "" && !strings.HasPrefix(line, "#") {
			patterns = append(patterns, line)
		}
	}
	require.True(t, dockerignored(patterns, "test/chart/x.go"))
	require.True(t, dockerignored(patterns, "hooks/a/b_test.go"))
	require.False(t, dockerignored(patterns, "hooks/a/b.go"))
	require.False(t, dockerignored(patterns, "hack/build.sh"), "the Dockerfile runs it")
	require.True(t, dockerignored(patterns, "hack/install-helm.sh"))

	ctx := t.TempDir()
	files, err := runCmd(root, "git", "ls-files", "--cached", "--others", "--exclude-standard")
	require.NoError(t, err)
	n := 0
	for _, rel := range strings.Split(strings.TrimSpace(files), "\n") {
		if rel == "" || dockerignored(patterns, rel) {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if os.IsNotExist(err) {
			continue // deleted in the work tree
		}
		require.NoError(t, err)
		dst := filepath.Join(ctx, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(dst), 0o755))
		require.NoError(t, os.WriteFile(dst, raw, 0o644))
		n++
	}
	require.Greater(t, n, 10)
	// As the Dockerfile's build step runs it: no .git in the context, and
	// no VERSION given (a --build-arg VERSION= that is empty), so the
	// binary names the VERSION file's release.
	bin := filepath.Join(t.TempDir(), "glance-hooks")
	cmd := exec.Command("bash", "hack/build.sh", bin)
	cmd.Dir = ctx
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=readonly", "VERSION=", "RELEASE=", "COMMIT=context")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "building from the image's build context failed; is something the binary needs in .dockerignore?\n%s", out)
	out, err = exec.Command(bin, "version").Output()
	require.NoError(t, err)
	release := strings.TrimSpace(string(mustRead(t, "VERSION")))
	assert.True(t, strings.HasPrefix(string(out), "glance-hooks "+release+" (commit context,"), "a bare docker build is stamped with the VERSION file's release: %s", out)
}
