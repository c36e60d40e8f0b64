package proc

import (
	"os"
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
