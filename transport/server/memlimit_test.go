package server

import (
	"io/fs"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestGoMemoryLimit: three quarters of the container's limit, unless
// GOMEMLIMIT is set or there is no usable limit.
func TestGoMemoryLimit(t *testing.T) {
	cases := []struct {
		name, container, gomemlimit string
		want                        int64
		ok                          bool
	}{
		{name: "the chart's 256 MiB gives the heap 192 MiB", container: "268435456", want: 192 << 20, ok: true},
		{name: "an operator's GOMEMLIMIT wins", container: "268435456", gomemlimit: "100MiB"},
		{name: "no container limit", container: ""},
		{name: "not a number", container: "256Mi"},
		{name: "zero is no limit", container: "0"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := GoMemoryLimit(tc.container, tc.gomemlimit)
			assert.Equal(t, tc.ok, ok)
			assert.Equal(t, tc.want, got)
		})
	}
}

// TestCgroupMemoryLimit: the limit a container runs with, from cgroup v2's
// memory.max or v1's memory.limit_in_bytes, when nothing passed it as
// MEMORY_LIMIT; their words for "no limit" are none.
func TestCgroupMemoryLimit(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{name: "cgroup v2 limit", files: map[string]string{cgroupV2MemoryMax: "268435456\n"}, want: "268435456"},
		{name: "cgroup v2 without a limit", files: map[string]string{cgroupV2MemoryMax: "max\n"}, want: ""},
		{name: "cgroup v1 limit", files: map[string]string{cgroupV1Limit: "134217728\n"}, want: "134217728"},
		{name: "cgroup v1 without a limit: the counter's ceiling", files: map[string]string{cgroupV1Limit: "9223372036854771712\n"}, want: ""},
		{name: "v2 is read first", files: map[string]string{cgroupV2MemoryMax: "max", cgroupV1Limit: "134217728"}, want: ""},
		{name: "neither file: not in a cgroup with a memory controller", files: map[string]string{}, want: ""},
		{name: "garbage is no limit", files: map[string]string{cgroupV2MemoryMax: "lots"}, want: ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			read := func(name string) ([]byte, error) {
				if v, ok := tc.files[name]; ok {
					return []byte(v), nil
				}
				return nil, fs.ErrNotExist
			}
			assert.Equal(t, tc.want, CgroupMemoryLimit(read))
		})
	}
}
