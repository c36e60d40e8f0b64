package datapath

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Bounds of every wait, generous because CI machines are small and shared.
const (
	readyTimeout  = 90 * time.Second
	termTimeout   = 15 * time.Second
	killTimeout   = 10 * time.Second
	manageTimeout = 3 * time.Minute
)

// tools are the external programs the test runs.
type tools struct {
	glanceAPI, glanceManage, versitygw string
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
	vgw, err := findVersitygw()
	if err != nil {
		t.Fatal(err)
	}
	if vgw == "" {
		missing = append(missing, "versitygw (hack/install-versitygw.sh, or set VERSITYGW_BIN)")
	}
	tl.versitygw = vgw
	if len(missing) > 0 {
		msg := "not installed: " + strings.Join(missing, " and ") + "; `make datapath-deps` installs them"
		if os.Getenv("REQUIRE_DATAPATH") != "" {
			t.Fatal(msg + " (REQUIRE_DATAPATH is set, so this is a failure)")
		}
		t.Skip(msg)
	}
	if p, err := exec.LookPath("glance-manage"); err == nil {
		tl.glanceManage = p
	} else {
		t.Fatalf("glance-api is installed but glance-manage is not on PATH: %v", err)
	}
	tl.python = interpreterOf(t, tl.glanceAPI)
	if out, err := exec.Command(tl.python, "-c", "import boto3, glance_store").CombinedOutput(); err != nil {
		t.Fatalf("%s cannot import boto3 and glance_store (install python3-boto3; `make datapath-deps`): %v\n%s", tl.python, err, out)
	}
	return tl
}

// findVersitygw looks where hack/install-versitygw.sh puts it, then on PATH.
// It returns "" when there is none; an explicit VERSITYGW_BIN that does not
// exist is an error, not an absence.
func findVersitygw() (string, error) {
	if p := os.Getenv("VERSITYGW_BIN"); p != "" {
		if st, err := os.Stat(p); err != nil || st.IsDir() {
			return "", fmt.Errorf("VERSITYGW_BIN=%s is not a file", p)
		}
		return p, nil
	}
	var dirs []string
	if d := os.Getenv("VERSITYGW_BIN_DIR"); d != "" {
		dirs = append(dirs, d)
	}
	if d, err := os.UserCacheDir(); err == nil { // $XDG_CACHE_HOME or ~/.cache, as the script
		dirs = append(dirs, filepath.Join(d, "glance-hooks", "bin"))
	}
	for _, d := range dirs {
		p := filepath.Join(d, "versitygw")
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	if p, err := exec.LookPath("versitygw"); err == nil {
		return p, nil
	}
	return "", nil
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

// freePort asks the kernel for a loopback port nobody listens on.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// baseEnv is a clean environment: nothing of the caller's (OS_*, AWS_*,
// PYTHONPATH, ~/.aws, ~/.glance/*.conf.d) can change what a program reads.
func baseEnv(home string) []string {
	path := os.Getenv("PATH")
	if path == "" {
		path = "/usr/local/bin:/usr/bin:/bin"
	}
	return []string{"PATH=" + path, "HOME=" + home, "LANG=C.UTF-8", "TZ=UTC"}
}

// proc is a program the test started in a process group of its own.
type proc struct {
	name, log string
	cmd       *exec.Cmd
	done      chan struct{}
	err       error
	redact    []string
	stopped   bool
}

// startProc starts argv with its output in logPath. The process is stopped
// by t's cleanup if the test does not stop it first.
func startProc(t *testing.T, name, logPath string, env []string, redact []string, argv ...string) *proc {
	t.Helper()
	f, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Dir = filepath.Dir(logPath)
	cmd.Stdout, cmd.Stderr = f, f
	// Its own group, so the whole tree can be killed; the kernel kills the
	// leader should this test binary die without cleaning up.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		f.Close()
		t.Fatalf("start %s: %v", name, err)
	}
	p := &proc{name: name, log: logPath, cmd: cmd, done: make(chan struct{}), redact: redact}
	go func() { p.err = cmd.Wait(); f.Close(); close(p.done) }()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("last lines of %s's log:\n%s", name, p.tail(40))
		}
		if err := p.stop(); err != nil {
			t.Error(err)
		}
	})
	return p
}

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop sends SIGTERM to the leader and waits; then SIGKILLs whatever is left
// in the group (glance-api's workers outlive a killed parent, and its parent
// has been seen to hang after SIGTERM) and waits until the group is empty,
// so a port can be reused safely.
func (p *proc) stop() error {
	if p.stopped {
		return nil
	}
	p.stopped = true
	pgid := p.cmd.Process.Pid
	if !p.exited() {
		_ = syscall.Kill(pgid, syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(termTimeout):
		}
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	deadline := time.Now().Add(killTimeout)
	for syscall.Kill(-pgid, 0) == nil {
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: process group %d still has processes %s after SIGKILL", p.name, pgid, killTimeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
	select {
	case <-p.done:
	case <-time.After(killTimeout):
		return fmt.Errorf("%s: pid %d not reaped %s after SIGKILL", p.name, pgid, killTimeout)
	}
	return nil
}

// tail is the end of the log, with the test's secrets masked.
func (p *proc) tail(n int) string {
	b, err := os.ReadFile(p.log)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	s := string(b)
	for _, r := range p.redact {
		s = strings.ReplaceAll(s, r, "<redacted>")
	}
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// logText is the whole log, with the test's secrets masked.
func (p *proc) logText() string { return p.tail(1 << 30) }

// waitHTTP polls url until ok accepts a status, the process exits, or the
// timeout passes; it returns how long that took.
func (p *proc) waitHTTP(t *testing.T, url string, ok func(int) bool, timeout time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	client := &http.Client{Timeout: 5 * time.Second}
	last := "no answer yet"
	for {
		if p.exited() {
			t.Fatalf("%s exited before it answered %s (%v); last lines of its log:\n%s", p.name, url, p.err, p.tail(40))
		}
		resp, err := client.Get(url)
		if err == nil {
			resp.Body.Close()
			if ok(resp.StatusCode) {
				return time.Since(start)
			}
			last = "HTTP " + strconv.Itoa(resp.StatusCode)
		} else {
			last = err.Error()
		}
		if time.Since(start) > timeout {
			t.Fatalf("%s did not answer %s within %s (last: %s); last lines of its log:\n%s", p.name, url, timeout, last, p.tail(40))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// runOnce runs a short-lived program to completion within a bound.
func runOnce(t *testing.T, timeout time.Duration, env []string, dir string, argv ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env, cmd.Dir = env, dir
	out, err := cmd.CombinedOutput()
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		err = fmt.Errorf("%s did not finish within %s", filepath.Base(argv[0]), timeout)
	}
	return string(out), err
}
