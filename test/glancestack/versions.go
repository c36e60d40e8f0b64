package glancestack

import (
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/c5c3/glance-hooks/test/proc"
	"github.com/c5c3/glance-hooks/test/services"
)

// Versions are the versions of Debian's glance and glance_store.
type Versions struct {
	Glance, GlanceStore string
}

var debianVersions = sync.OnceValues(func() (Versions, error) { return readVersions(services.Python) })

// readVersions runs python (a command line: the interpreter, or chroot
// and the interpreter of another system) to print the versions; the zero
// Versions when it cannot tell.
func readVersions(python ...string) (Versions, error) {
	argv := append(python, "-c",
		"import boto3, glance_store; from importlib.metadata import version as v; print(v('glance'), v('glance_store'))")
	out, err := proc.Run(time.Minute, proc.Options{Env: proc.CleanEnv("/"), Dir: "/", Argv: argv})
	f := strings.Fields(out)
	if err != nil || len(f) != 2 {
		return Versions{}, err
	}
	return Versions{Glance: f[0], GlanceStore: f[1]}, nil
}

// rootVersions are the versions read in each system, by its root: a
// system's packages do not change while the tests run, and every stack
// and every pod of another image asks.
var rootVersions sync.Map

// VersionsIn reads them in the image a stack's pods run in: this
// machine's Debian 12 when root is empty, else the system at root.
func VersionsIn(t testing.TB, root string) Versions {
	t.Helper()
	if root == "" {
		return DebianVersions(t)
	}
	if v, ok := rootVersions.Load(root); ok {
		return v.(Versions)
	}
	v, err := readVersions("chroot", root, "/usr/bin/python3")
	if err != nil || v.Glance == "" {
		t.Fatalf("reading the versions of glance and glance_store in %s: %v", root, err)
	}
	rootVersions.Store(root, v)
	return v
}

// UnstableRoot is the Debian unstable system with the newest Glance
// packages (proc.UnstableRoot): a stack whose pods run in it
// (podrun.Options.Root) runs a Glance newer than 2026.1 on its own Python.
func UnstableRoot(t testing.TB) string {
	t.Helper()
	return proc.UnstableRoot(t)
}

// TrixieRoot is Debian 13's system with glance 30, the 2025.1 release
// (proc.TrixieRoot): a stack whose pods run in it runs 2025.1's Glance,
// its libraries and Python as that release has them.
func TrixieRoot(t testing.TB) string {
	t.Helper()
	return proc.TrixieRoot(t)
}

// DebianVersions reads them with the system interpreter, skipping the test
// (failing it under REQUIRE_SERVICES) when glance or boto3, which
// glance_store's S3 driver needs, is not installed.
func DebianVersions(t testing.TB) Versions {
	t.Helper()
	v, err := debianVersions()
	if err != nil || v.Glance == "" {
		proc.Missing(t, "glance (Debian packages glance-api and python3-boto3)", "hack/install-glance.sh installs them")
	}
	return v
}

// S3Region is the region the stack's S3 server signs for: the guide's
// (rendered as s3_store_region_name), except with a glance_store older
// than 4.2, which has no such option, ignores it and signs for us-east-1
// (botocore's choice for a custom endpoint); an S3 server that checks
// signatures must then be in us-east-1, and every upload shows the
// rendered region is harmlessly ignored.
func (v Versions) S3Region() string {
	if !atLeast(v.GlanceStore, 4, 2) {
		return "us-east-1"
	}
	return Region
}

// ReadsS3StoreCACert tells whether glance_store has s3_store_cacert, a CA
// bundle per store (4.7 on); without it one process-wide bundle
// (AWS_CA_BUNDLE) verifies every S3 store.
func (v Versions) ReadsS3StoreCACert() bool { return atLeast(v.GlanceStore, 4, 7) }

// atLeast compares a dotted version with major.minor; an unreadable one
// counts as a current release.
func atLeast(version string, major, minor int) bool {
	parts := strings.SplitN(version, ".", 3)
	ma, err1 := strconv.Atoi(parts[0])
	mi := 0
	var err2 error
	if len(parts) > 1 {
		mi, err2 = strconv.Atoi(parts[1])
	}
	if err1 != nil || err2 != nil {
		return true
	}
	return ma > major || (ma == major && mi >= minor)
}

// osloMiddlewareEnv names the directory hack/install-oslo-middleware.sh
// unpacks into when it is not the default one.
const osloMiddlewareEnv = "OSLO_MIDDLEWARE_DIR"

// NewerOsloMiddleware is the directory of the oslo.middleware that
// releases from 2026.1 ship (hack/install-oslo-middleware.sh), which the
// stack's 2026.1 glance-api pods find first on PYTHONPATH, as that
// release's image has it: it refuses to build the healthcheck as a paste
// filter, which Debian 12's 5.0.0 still does. The test is skipped (failed
// under REQUIRE_SERVICES) when it is not installed.
func NewerOsloMiddleware(t testing.TB) string {
	t.Helper()
	dir := proc.Installed(t, osloMiddlewareEnv, "/usr/local/lib/glance-hooks/oslo.middleware",
		"the oslo.middleware of 2026.1", "hack/install-oslo-middleware.sh installs it")
	if err := refusesHealthcheckFilter(dir); err != nil {
		t.Fatalf("the oslo.middleware in %s is not the one 2026.1 ships: %v", dir, err)
	}
	return dir
}

// refusesHealthcheckFilter checks, once per directory, that the
// oslo.middleware there is one that refuses the healthcheck as a filter:
// without that, the 2026.1 pods would prove nothing about the paste file.
var refusesHealthcheckFilter = func() func(dir string) error {
	var mu sync.Mutex
	checked := map[string]error{}
	return func(dir string) error {
		mu.Lock()
		defer mu.Unlock()
		if err, ok := checked[dir]; ok {
			return err
		}
		_, err := proc.Run(time.Minute, proc.Options{Env: proc.CleanEnv("/", "PYTHONPATH="+dir), Dir: "/", Argv: []string{services.Python, "-c",
			"import oslo_middleware.healthcheck as h\ntry:\n    h.Healthcheck.factory({})\nexcept NotImplementedError:\n    raise SystemExit(0)\nraise SystemExit('it builds the healthcheck as a filter')"}})
		checked[dir] = err
		return err
	}
}()
