package proc

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// groupMembers describes the processes of a process group, one a line:
// pid, state and the kernel function it waits in (as ps shows them) and
// its command line. It says why a program did not end on SIGTERM: asleep
// in a wait for a child, stopped, or still busy.
func groupMembers(pgid int) string {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return "(cannot read /proc: " + err.Error() + ")"
	}
	var out []string
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		dir := filepath.Join("/proc", e.Name())
		stat, err := os.ReadFile(filepath.Join(dir, "stat"))
		if err != nil {
			continue
		}
		// After the command's closing parenthesis: state, ppid, pgrp.
		f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(f) < 3 || f[2] != strconv.Itoa(pgid) {
			continue
		}
		wchan, _ := os.ReadFile(filepath.Join(dir, "wchan"))
		cmd, _ := os.ReadFile(filepath.Join(dir, "cmdline"))
		out = append(out, fmt.Sprintf("  pid %d ppid %s state %s waiting in %q: %s",
			pid, f[1], f[0], wchan, strings.TrimSpace(strings.ReplaceAll(string(cmd), "\x00", " "))))
	}
	if len(out) == 0 {
		return "  (no process left)"
	}
	return strings.Join(out, "\n")
}
