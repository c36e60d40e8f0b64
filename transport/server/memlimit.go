package server

import (
	"strconv"
	"strings"
)

// MemoryLimitShare is the part of the container's memory limit the Go heap
// is held to (GOMEMLIMIT). The rest is headroom for what the Go limit does
// not steer: memory the runtime has not yet returned, goroutine stacks of
// connections still reading bodies, and the kernel's accounting of the
// binary and socket buffers. Measured: see docs/performance.md.
const MemoryLimitShare = 0.75

// GoMemoryLimit is the Go memory limit for a container whose memory limit
// (in bytes, as the downward API gives it) is containerLimit; false when
// there is none to derive from or GOMEMLIMIT is already set (an operator's
// explicit value wins).
func GoMemoryLimit(containerLimit, gomemlimit string) (int64, bool) {
	if strings.TrimSpace(gomemlimit) != "" {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(containerLimit), 10, 64)
	if err != nil || n <= 0 {
		return 0, false
	}
	return int64(float64(n) * MemoryLimitShare), true
}

// The cgroup files a container's memory limit is read from when it runs
// without MEMORY_LIMIT (outside the chart): cgroup v2's, then v1's.
const (
	cgroupV2MemoryMax = "/sys/fs/cgroup/memory.max"
	cgroupV1Limit     = "/sys/fs/cgroup/memory/memory.limit_in_bytes"
)

// noCgroupLimit: cgroup v1 reports "no limit" as the largest page-aligned
// counter (9223372036854771712); anything this large is none.
const noCgroupLimit = 1 << 60

// CgroupMemoryLimit is the memory limit of the cgroup the process runs in,
// in bytes as GoMemoryLimit reads it, or "" when there is none or it
// cannot be read. read is os.ReadFile (tests give their own files).
func CgroupMemoryLimit(read func(string) ([]byte, error)) string {
	for _, file := range []string{cgroupV2MemoryMax, cgroupV1Limit} {
		raw, err := read(file)
		if err != nil {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(string(raw)), 10, 64)
		if err != nil || n <= 0 || n >= noCgroupLimit {
			// "max" (v2), the v1 counter's ceiling, or nothing a limit
			// could be: no limit, whatever the other file says.
			return ""
		}
		return strconv.FormatInt(n, 10)
	}
	return ""
}
