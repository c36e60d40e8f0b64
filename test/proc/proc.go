package proc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
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

// Bounds of stopping a program, generous because CI machines are small and
// shared: glance-api and uWSGI take a few seconds to finish their workers.
const (
	DefaultGracePeriod = 15 * time.Second
	killTimeout        = 10 * time.Second
)

// Options say what to start and how.
type Options struct {
	// Name is how messages call the program (default: the base name of Argv[0]).
	Name string
	// Argv is the program and its arguments; Argv[0] is looked up in the
	// PATH of Env when it has no slash.
	Argv []string
	// Env is the whole environment (default: CleanEnv(Dir)).
	Env []string
	// Dir is the working directory (default: the log file's directory).
	Dir string
	// Log receives stdout and stderr; required.
	Log string
	// Redactor masks secrets in the log when it is shown.
	Redactor *Redactor
	// Stdin, when set, is the program's standard input.
	Stdin io.Reader
	// ExtraFiles become file descriptors 3, 4, ... of the program.
	ExtraFiles []*os.File
	// Cloneflags are namespaces the program starts in (CLONE_NEW*).
	Cloneflags uintptr
	// GracePeriod is how long Stop waits after SIGTERM before SIGKILL
	// (default DefaultGracePeriod).
	GracePeriod time.Duration
}

// Process is a started program.
type Process struct {
	name    string
	log     string
	cmd     *exec.Cmd
	done    chan struct{}
	err     error
	redact  *Redactor
	grace   time.Duration
	stopped bool
	started time.Time
}

// Start starts a program; t's cleanup stops it (and shows the end of its
// log when the test failed) unless the test stopped it first.
func Start(t testing.TB, o Options) *Process {
	t.Helper()
	p, err := StartE(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("last lines of %s's log (%s):\n%s", p.name, p.log, p.Tail(40))
		}
		if err := p.Stop(); err != nil {
			t.Error(err)
		}
	})
	return p
}

// StartE is Start for callers that manage the process themselves: nothing
// stops it but Stop (and the kernel, should the caller die).
func StartE(o Options) (*Process, error) {
	if len(o.Argv) == 0 {
		return nil, errors.New("proc: nothing to start (empty Argv)")
	}
	if o.Log == "" {
		return nil, fmt.Errorf("proc: %s: no log file given", o.Argv[0])
	}
	name := o.Name
	if name == "" {
		name = filepath.Base(o.Argv[0])
	}
	dir := o.Dir
	if dir == "" {
		dir = filepath.Dir(o.Log)
	}
	env := o.Env
	if env == nil {
		env = CleanEnv(dir)
	}
	bin, err := LookPath(o.Argv[0], env)
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	f, err := os.OpenFile(o.Log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, o.Argv[1:]...)
	cmd.Args[0] = o.Argv[0]
	cmd.Env, cmd.Dir = env, dir
	cmd.Stdout, cmd.Stderr = f, f
	cmd.Stdin = o.Stdin
	cmd.ExtraFiles = o.ExtraFiles
	// A group of its own, so workers can be killed with their parent; the
	// kernel kills the leader should this test binary die without cleaning up.
	cmd.SysProcAttr = sysProcAttr(o.Cloneflags)
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	grace := o.GracePeriod
	if grace <= 0 {
		grace = DefaultGracePeriod
	}
	p := &Process{name: name, log: o.Log, cmd: cmd, done: make(chan struct{}), redact: o.Redactor, grace: grace, started: time.Now()}
	go func() { p.err = cmd.Wait(); f.Close(); close(p.done) }()
	return p, nil
}

// LookPath resolves a program name the way the program's own environment
// would: a name without a slash is looked up in env's PATH, not the caller's.
func LookPath(name string, env []string) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil
	}
	path := ""
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, "PATH="); ok {
			path = v
		}
	}
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("executable %q not found in PATH %s", name, path)
}

// Name is how messages call the program.
func (p *Process) Name() string { return p.name }

// Pid is the program's process id (also its process group id).
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// LogPath is the file holding its output.
func (p *Process) LogPath() string { return p.log }

// Done is closed once the program has exited and been reaped.
func (p *Process) Done() <-chan struct{} { return p.done }

// Exited tells whether the program has ended.
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// ExitCode is the program's exit status once it has exited: its code, or
// 128+signal when a signal ended it (as a shell and the kubelet report it);
// -1 while it runs.
func (p *Process) ExitCode() int {
	if !p.Exited() {
		return -1
	}
	return exitCode(p.cmd.ProcessState)
}

func exitCode(st *os.ProcessState) int {
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return st.ExitCode()
}

// Err is what waiting for the program returned (nil for exit code 0).
func (p *Process) Err() error {
	if !p.Exited() {
		return nil
	}
	return p.err
}

// Wait waits for the program to end by itself within timeout.
func (p *Process) Wait(timeout time.Duration) error {
	select {
	case <-p.done:
		return nil
	case <-time.After(timeout):
		return fmt.Errorf("%s did not finish within %s; its log ends:\n%s", p.name, timeout, p.Tail(20))
	}
}

// Signal sends sig to the program (the group leader).
func (p *Process) Signal(sig syscall.Signal) error {
	if p.Exited() {
		return nil
	}
	return syscall.Kill(p.Pid(), sig)
}

// Stop sends SIGTERM to the program and waits up to its grace period; then
// SIGKILLs whatever is left of its process group (workers outlive a killed
// parent) and waits until the group is empty, so its ports can be reused.
// It is an error when something survives.
func (p *Process) Stop() error {
	if p.stopped {
		return nil
	}
	p.stopped = true
	pgid := p.Pid()
	if !p.Exited() {
		_ = syscall.Kill(pgid, syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(p.grace):
			p.note(fmt.Sprintf("grace period of %s over, SIGKILL to what is left:\n%s", p.grace, groupMembers(pgid)))
		}
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	deadline := time.Now().Add(killTimeout)
	for syscall.Kill(-pgid, 0) == nil {
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: process group %d still has processes %s after SIGKILL", p.name, pgid, killTimeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
	select {
	case <-p.done:
	case <-time.After(killTimeout):
		return fmt.Errorf("%s: pid %d not reaped %s after SIGKILL", p.name, pgid, killTimeout)
	}
	return nil
}

// note appends a line of the harness's own to the program's log.
func (p *Process) note(msg string) {
	f, err := os.OpenFile(p.log, os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = fmt.Fprintf(f, "proc: %s\n", msg)
}

// Log is the whole log with secrets masked.
func (p *Process) Log() string {
	b, err := os.ReadFile(p.log)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	return p.redact.Redact(string(b))
}

// Tail is the last n lines of the log, secrets masked.
func (p *Process) Tail(n int) string { return LastLines(p.Log(), n) }

// LastLines is the last n lines of s.
func LastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// WaitFor polls ready until it returns nil, the program exits or timeout
// passes, and returns how long since the start it took. Errors carry the end
// of the log.
func (p *Process) WaitFor(timeout time.Duration, what string, ready func() error) (time.Duration, error) {
	deadline := time.Now().Add(timeout)
	for {
		if p.Exited() {
			return 0, fmt.Errorf("%s exited (%s) before %s; its log ends:\n%s", p.name, p.exitText(), what, p.Tail(40))
		}
		last := ready()
		if last == nil {
			return time.Since(p.started), nil
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("%s: no %s within %s (last: %s); its log ends:\n%s", p.name, what, timeout, p.redact.Redact(last.Error()), p.Tail(40))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (p *Process) exitText() string {
	if ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return "signal " + ws.Signal().String()
	}
	return "exit code " + strconv.Itoa(p.cmd.ProcessState.ExitCode())
}

var pollClient = &http.Client{Timeout: 5 * time.Second}

// HTTPStatus is a readiness check: GET url must answer a status ok accepts.
func HTTPStatus(url string, ok func(code int) bool) func() error {
	return func() error {
		resp, err := pollClient.Get(url)
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if !ok(resp.StatusCode) {
			return fmt.Errorf("GET %s: HTTP %d", url, resp.StatusCode)
		}
		return nil
	}
}

// Run runs a short-lived program to completion within timeout and returns
// its combined output (secrets masked) and an error unless it exited 0.
func Run(timeout time.Duration, o Options) (string, error) {
	if len(o.Argv) == 0 {
		return "", errors.New("proc: nothing to run (empty Argv)")
	}
	name := o.Name
	if name == "" {
		name = filepath.Base(o.Argv[0])
	}
	env := o.Env
	if env == nil {
		env = CleanEnv(o.Dir)
	}
	bin, err := LookPath(o.Argv[0], env)
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, o.Argv[1:]...)
	cmd.Args[0] = o.Argv[0]
	cmd.Env, cmd.Dir, cmd.Stdin = env, o.Dir, o.Stdin
	cmd.SysProcAttr = sysProcAttr(0)
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	text := o.Redactor.Redact(out.String())
	if o.Log != "" {
		_ = os.WriteFile(o.Log, []byte(text), 0o600)
	}
	if ctx.Err() != nil {
		return text, fmt.Errorf("%s did not finish within %s", name, timeout)
	}
	if err != nil {
		return text, fmt.Errorf("%s: %w", name, err)
	}
	return text, nil
}
