package datapath

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/c5c3/glance-hooks/test/services"
)

// Bounds of every wait, generous because CI machines are small and shared.
const (
	readyTimeout  = 90 * time.Second
	manageTimeout = 3 * time.Minute
)

// tools are the external programs the test runs.
type tools struct {
	glanceAPI string
	// python is glance-api's interpreter (its shebang): the one that has
	// glance_store and boto3. A python3 earlier on PATH may not.
	python string
}

// findTools skips the test when glance-api or versitygw is absent, saying
// which, unless REQUIRE_DATAPATH is set (CI sets it after installing both).
func findTools(t *testing.T) tools {
	t.Helper()
	var tl tools
	var missing []string
	if p, err := exec.LookPath("glance-api"); err == nil {
		tl.glanceAPI = p
	} else {
		missing = append(missing, "glance-api (Debian packages glance-api and python3-boto3)")
	}
	vgw, err := services.FindVersitygw()
	if err != nil {
		t.Fatal(err)
	}
	if vgw == "" {
		missing = append(missing, "versitygw (hack/install-versitygw.sh, or set VERSITYGW_BIN)")
	}
	if len(missing) > 0 {
		msg := "not installed: " + strings.Join(missing, " and ") + "; `make datapath-deps` installs them"
		if os.Getenv("REQUIRE_DATAPATH") != "" {
			t.Fatal(msg + " (REQUIRE_DATAPATH is set, so this is a failure)")
		}
		t.Skip(msg)
	}
	// The schema Jobs run it.
	if _, err := exec.LookPath("glance-manage"); err != nil {
		t.Fatalf("glance-api is installed but glance-manage is not on PATH: %v", err)
	}
	tl.python = interpreterOf(t, tl.glanceAPI)
	if out, err := exec.Command(tl.python, "-c", "import boto3, glance_store").CombinedOutput(); err != nil {
		t.Fatalf("%s cannot import boto3 and glance_store (install python3-boto3; `make datapath-deps`): %v\n%s", tl.python, err, out)
	}
	return tl
}

// interpreterOf reads a script's "#!" line.
func interpreterOf(t *testing.T, script string) string {
	t.Helper()
	f, err := os.Open(script)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	fields := strings.Fields(strings.TrimPrefix(line, "#!"))
	if !strings.HasPrefix(line, "#!") || len(fields) == 0 {
		t.Fatalf("%s has no #! line; cannot tell which python runs it", script)
	}
	if filepath.Base(fields[0]) == "env" && len(fields) > 1 {
		p, err := exec.LookPath(fields[1])
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	return fields[0]
}
