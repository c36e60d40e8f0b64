package proc

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRedactorMasksEveryEncodedForm(t *testing.T) {
	var r Redactor
	r.Add("p@ss:w/o%rd", "ab") // "ab" is too short to mask
	got := r.Redact("pw=p@ss:w/o%rd url=mysql://u:p%40ss%3Aw%2Fo%25rd@h/db ab")
	assert.Equal(t, "pw=<redacted> url=mysql://u:<redacted>@h/db ab", got)
	var nilR *Redactor
	assert.Equal(t, "x", nilR.Redact("x"))
}

func TestStopKillsTheWholeGroup(t *testing.T) {
	dir := t.TempDir()
	// The shell ignores SIGTERM and leaves a child behind: Stop must still
	// end both, within the grace period plus the kill.
	p := Start(t, Options{
		Argv:        []string{"sh", "-c", `trap '' TERM; sleep 300 & echo started; wait`},
		Log:         filepath.Join(dir, "sh.log"),
		GracePeriod: 200 * time.Millisecond,
	})
	_, err := p.WaitFor(10*time.Second, "its first line", func() error {
		if !strings.Contains(p.Log(), "started") {
			return os.ErrNotExist
		}
		return nil
	})
	require.NoError(t, err)
	require.NoError(t, p.Stop())
	assert.True(t, p.Exited())
	assert.Equal(t, 128+int(syscall.SIGKILL), p.ExitCode())
	assert.Error(t, syscall.Kill(-p.Pid(), 0), "no process of the group is left")
	// The log says what outlived the grace period, and why: the shell
	// waits for its child, which sleeps.
	log := p.Log()
	assert.Contains(t, log, "proc: grace period of 200ms over, SIGKILL to what is left:\n")
	assert.Regexp(t, `pid `+strconv.Itoa(p.Pid())+` ppid \d+ state S waiting in "[a-z_.0-9]+": sh -c`, log)
	assert.Regexp(t, `pid \d+ ppid `+strconv.Itoa(p.Pid())+` state S waiting in "[a-z_.0-9]+": sleep 300`, log)
}

func TestWaitForReportsAnEarlyExitWithTheLog(t *testing.T) {
	var r Redactor
	r.Add("s3cr3t-value")
	p := Start(t, Options{
		Argv:     []string{"sh", "-c", "echo failing with s3cr3t-value; exit 3"},
		Log:      filepath.Join(t.TempDir(), "x.log"),
		Redactor: &r,
	})
	_, err := p.WaitFor(10*time.Second, "readiness", func() error { return os.ErrNotExist })
	require.Error(t, err)
	assert.Contains(t, err.Error(), "exit code 3")
	assert.Contains(t, err.Error(), "failing with <redacted>")
	assert.NotContains(t, err.Error(), "s3cr3t-value")
	assert.Equal(t, 3, p.ExitCode())
}

func TestRunUsesTheEnvironmentsPathAndStdin(t *testing.T) {
	out, err := Run(10*time.Second, Options{
		Argv:  []string{"sh", "-c", `echo "$PATH"; cat`},
		Env:   CleanEnv(t.TempDir()),
		Stdin: strings.NewReader("from stdin"),
	})
	require.NoError(t, err)
	assert.Equal(t, SystemPath+"\nfrom stdin", out)

	_, err = Run(200*time.Millisecond, Options{Argv: []string{"sleep", "5"}})
	assert.ErrorContains(t, err, "did not finish within 200ms")
	_, err = Run(time.Second, Options{Argv: []string{"no-such-program-here"}})
	assert.ErrorContains(t, err, `executable "no-such-program-here" not found in PATH`)
}
