package release

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/internal/buildinfo"
)

// root is the repository's top directory, from this package's.
var root = filepath.Join("..", "..")

func read(t *testing.T, rel string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, rel))
	require.NoError(t, err)
	return string(raw)
}

// matches is every first group of re in s.
func matches(re, s string) []string {
	var out []string
	for _, m := range regexp.MustCompile(re).FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	return out
}

// The VERSION file is the release; every copy of it that a user meets
// says the same: the chart a clone installs, the image a bare docker build
// labels, the CHANGELOG's newest release, the image `make push` pushes for
// it, and the image a binary of it runs its registration Jobs with.
func TestOneVersionEverywhere(t *testing.T) {
	release := strings.TrimSpace(read(t, "VERSION"))
	require.Regexp(t, `^\d+\.\d+\.\d+(-[0-9A-Za-z.]+)?$`, release, "VERSION holds a semantic version without a v")

	chart := read(t, "charts/glance-hooks/Chart.yaml")
	assert.Equal(t, []string{release}, matches(`(?m)^version: "?([^"\n]+)"?$`, chart), "Chart.yaml version (make set-version)")
	assert.Equal(t, []string{release}, matches(`(?m)^appVersion: "?([^"\n]+)"?$`, chart), "Chart.yaml appVersion (make set-version)")
	assert.Equal(t, []string{release, release}, matches(`(?m)^ARG VERSION=(.*)$`, read(t, "Dockerfile")),
		"the Dockerfile's default VERSION, which a bare docker build labels the image with (make set-version)")
	sections := matches(`(?m)^## \[(\d[^\]]*)\]`, read(t, "CHANGELOG.md"))
	require.NotEmpty(t, sections)
	assert.Equal(t, release, sections[0], "CHANGELOG.md's newest released section")

	// The chart's default image: the values' repository, tagged with the
	// appVersion (test/chart checks the rendered Deployment uses it).
	values := read(t, "charts/glance-hooks/values.yaml")
	repo := matches(`(?m)^  repository: (\S+)$`, values)
	require.Len(t, repo, 1)
	assert.Equal(t, []string{`""`}, matches(`(?m)^  tag: (\S+)$`, values), "an empty tag means the appVersion")
	chartImage := repo[0] + ":" + release
	assert.Equal(t, buildinfo.ImageRepository+":"+release, chartImage, "the binary's default job image repository")

	// What `make push` pushes at the release's tag, where hack/version.sh
	// gives the release (TestVersionScript).
	registry, ok := strings.CutSuffix(repo[0], "/glance-hooks")
	require.True(t, ok, "the chart's repository is <registry>/glance-hooks, as make push names it")
	cmd := exec.Command("make", "-s", "--no-print-directory", "image-ref", "REGISTRY="+registry, "VERSION="+release)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Equal(t, chartImage, strings.TrimSpace(string(out)), "make push pushes the chart's default image")

	// A binary built the way every artifact is, with nothing given, names
	// the release and runs its registration Jobs with the release's image.
	bin := filepath.Join(t.TempDir(), "glance-hooks")
	build := exec.Command("bash", filepath.Join(root, "hack", "build.sh"), bin)
	build.Env = append(os.Environ(), "VERSION=", "RELEASE=", "COMMIT=")
	out, err = build.CombinedOutput()
	require.NoError(t, err, "%s", out)
	out, err = exec.Command(bin, "version", "-o", "json").Output()
	require.NoError(t, err)
	var info buildinfo.Info
	require.NoError(t, json.Unmarshal(out, &info))
	assert.Equal(t, release, info.Release, "hack/build.sh stamps the VERSION file's release")
	assert.True(t, info.Version == release || strings.HasPrefix(info.Version, release+"-dev.g"), "the version is the release or a development build after it: %s", info.Version)
	out, err = exec.Command(bin, "serve", "--help").Output()
	require.NoError(t, err)
	assert.Contains(t, string(out), `(default "`+chartImage+`")`, "serve --job-image defaults to the release's image")
}

// hack/version.sh in a repository of its own: the release at its tag or
// without git, a development version everywhere else.
func TestVersionScript(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "hack"), 0o755))
	script := read(t, "hack/version.sh")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "hack", "version.sh"), []byte(script), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "VERSION"), []byte("1.4.2\n"), 0o644))
	run := func(args ...string) (string, error) {
		cmd := exec.Command("bash", append([]string{filepath.Join(dir, "hack", "version.sh")}, args...)...)
		out, err := cmd.CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}
	git := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.test", "-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false"}, args...)...)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "git %v: %s", args, out)
		return strings.TrimSpace(string(out))
	}

	out, err := run()
	require.NoError(t, err, out)
	assert.Equal(t, "1.4.2", out, "no git (the image's build context): the release")

	git("init", "-q")
	git("add", ".")
	git("commit", "-q", "-m", "one")
	sha := git("rev-parse", "--short=12", "HEAD")
	out, err = run()
	require.NoError(t, err, out)
	assert.Equal(t, "1.4.2-dev.g"+sha, out, "an untagged commit is a development build")

	git("tag", "v1.4.2")
	out, err = run()
	require.NoError(t, err, out)
	assert.Equal(t, "1.4.2", out, "the release's tag")
	out, err = run("--release")
	require.NoError(t, err, out)
	assert.Equal(t, "1.4.2", out)

	require.NoError(t, os.WriteFile(filepath.Join(dir, "hack", "version.sh"), []byte(script+"\n"), 0o755))
	out, err = run()
	require.NoError(t, err, out)
	assert.Equal(t, "1.4.2-dev.g"+sha+".dirty", out, "changes on top of the tag are no release")
	git("checkout", "-q", "--", "hack/version.sh")

	git("tag", "v1.4.1")
	git("tag", "-d", "v1.4.2")
	out, err = run()
	require.NoError(t, err, out)
	assert.Equal(t, "1.4.2-dev.g"+sha, out, "another release's tag is not VERSION's")

	require.NoError(t, os.WriteFile(filepath.Join(dir, "VERSION"), []byte("v1.4\n"), 0o644))
	out, err = run()
	require.Error(t, err, "a VERSION that is no semantic version is refused")
	assert.Contains(t, out, `VERSION holds "v1.4", which is no semantic version`)
}
