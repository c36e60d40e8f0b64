package proc

import (
	"os"
	"path/filepath"
	"testing"
)

// SystemPath is where Debian installs programs. Tests use it rather than the
// caller's PATH, where a python3 of pyenv or a virtualenv would shadow the
// system interpreter the Debian packages are installed for.
const SystemPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// CleanEnv is a minimal environment: nothing of the caller's (OS_*, AWS_*,
// PYTHONPATH, MYSQL_*, ~/.my.cnf, ~/.aws) can change what a program reads.
// home becomes HOME; extra entries (NAME=value) are appended.
func CleanEnv(home string, extra ...string) []string {
	env := []string{"PATH=" + SystemPath, "HOME=" + home, "LANG=C.UTF-8", "TZ=UTC"}
	if tmp := os.Getenv("TMPDIR"); tmp != "" {
		env = append(env, "TMPDIR="+tmp)
	}
	return append(env, extra...)
}

// RequireEnv names the environment variable that turns a missing real
// component into a test failure instead of a skip; `make test` sets it.
const RequireEnv = "REQUIRE_SERVICES"

// Missing skips the test because what is not there (hint says how to get
// it), or fails it when RequireEnv is set.
func Missing(t testing.TB, what, hint string) {
	t.Helper()
	msg := "not available: " + what + "; " + hint
	if os.Getenv(RequireEnv) != "" {
		t.Fatal(msg + " (" + RequireEnv + " is set, so this is a failure)")
	}
	t.Skip(msg)
}

// Installed is the directory an install script of hack/ made, named by the
// environment variable env or else def, once the script marked it complete
// (a file .complete in it); without it the test is skipped, or failed under
// RequireEnv, naming what (what) and how to get it (hint).
func Installed(t testing.TB, env, def, what, hint string) string {
	t.Helper()
	dir := os.Getenv(env)
	if dir == "" {
		dir = def
	}
	if _, err := os.Stat(filepath.Join(dir, ".complete")); err != nil {
		Missing(t, what+" ("+dir+")", hint)
	}
	return dir
}

// UnstableRoot is the Debian unstable system `hack/install-glance-debian.sh
// unstable` makes (GLANCE_UNSTABLE_ROOT), with the newest Glance Debian
// packages, for containers that run in it as in an image (podrun's
// Options.Root).
func UnstableRoot(t testing.TB) string {
	t.Helper()
	return Installed(t, "GLANCE_UNSTABLE_ROOT", "/usr/local/lib/glance-hooks/debian-unstable",
		"Debian unstable's Glance", "hack/install-glance-debian.sh unstable makes it")
}

// TrixieRoot is the Debian 13 system `hack/install-glance-debian.sh trixie`
// makes (GLANCE_TRIXIE_ROOT), with glance 30, the 2025.1 release, for
// containers that run in it as in an image.
func TrixieRoot(t testing.TB) string {
	t.Helper()
	return Installed(t, "GLANCE_TRIXIE_ROOT", "/usr/local/lib/glance-hooks/debian-trixie",
		"Debian 13's Glance", "hack/install-glance-debian.sh trixie makes it")
}
