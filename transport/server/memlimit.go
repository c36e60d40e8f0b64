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
