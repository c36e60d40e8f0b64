package test

import (
	"bufio"
	"bytes"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/test/testbin"
)

// chartMemoryLimit is the memory limit the chart gives each container.
const chartMemoryLimit = 256 << 20

var servingRE = regexp.MustCompile(`"msg":"serving","listen":"(127\.0\.0\.1:[0-9]+)"`)

// hooksProcess runs the built binary the way the chart's hooks container
// does (its memory limit in MEMORY_LIMIT), plain HTTP on loopback, on a
// node of 16 CPUs (the chart sets no CPU limit, so GOMAXPROCS is the
// node's), where 32 requests could be worked on at once by count alone.
func hooksProcess(t *testing.T) (addr string, peakRSS func() int64) {
	t.Helper()
	bin, err := testbin.Path()
	require.NoError(t, err)
	cmd := exec.Command(bin, "serve", "--routes", "hooks", "--listen", "127.0.0.1:0", "--insecure-plain-http")
	cmd.Env = append(os.Environ(), "MEMORY_LIMIT="+strconv.Itoa(chartMemoryLimit), "GOMEMLIMIT=", "GOMAXPROCS=16")
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if m := servingRE.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	select {
	case addr = <-found:
	case <-time.After(20 * time.Second):
		t.Fatal("the service did not start")
	}
	return addr, func() int64 {
		raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid))
		require.NoError(t, err)
		for _, line := range strings.Split(string(raw), "\n") {
			if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
				kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
				require.NoError(t, err)
				return kb << 10
			}
		}
		t.Fatal("no VmHWM")
		return 0
	}
}

// The heaviest requests known, near the body limit, all at once and twice
// over, are each answered (never a 5xx or a dropped connection) and the
// process stays within the chart's memory limit: the Go heap is held to
// three quarters of it, and requests are admitted by their weight.
func TestHeavyRequestsStayWithinTheChartsMemoryLimit(t *testing.T) {
	addr, peakRSS := hooksProcess(t)
	heavy := heavyRequests(t)
	client := &http.Client{Timeout: 2 * time.Minute}
	post := func(body []byte) (int, error) {
		resp, err := client.Post("http://"+addr+"/sync/glance", "application/json", bytes.NewReader(body))
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		_, err = bufio.NewReader(resp.Body).WriteTo(discard{})
		return resp.StatusCode, err
	}

	// The N=8000 request alone first, for its own figure.
	code, err := post(heavy["8000 backends sharing a store id"])
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, code)
	t.Logf("8000 backends sharing a store id (%d bytes): peak RSS %.1f MiB", len(heavy["8000 backends sharing a store id"]), float64(peakRSS())/(1<<20))

	var wg sync.WaitGroup
	for round := range 3 {
		for name, body := range heavy {
			wg.Add(1)
			go func() {
				defer wg.Done()
				code, err := post(body)
				if assert.NoError(t, err, "%s (round %d)", name, round) {
					assert.True(t, code < 500, "%s: %d", name, code)
				}
			}()
		}
	}
	wg.Wait()
	peak := peakRSS()
	t.Logf("%d heavy requests at once: peak RSS %.1f MiB of the chart's %d MiB", 3*len(heavy), float64(peak)/(1<<20), chartMemoryLimit>>20)
	assert.Less(t, peak, int64(chartMemoryLimit))
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
