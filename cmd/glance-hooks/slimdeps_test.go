package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The binary must not link client-go's typed clientset or its scheme
// again. Both register every built-in API group (57 packages) when the
// process starts, for the two kinds of object the credentials command
// writes: with them the stripped binary was 52 MB and the idle serve
// process 33 MiB resident, without them 28 MB and 21 MiB, and the peak
// under the 1000-backend load about 12 MiB lower (docs/performance.md,
// "The idle process"). Use the dynamic client (transport/kube,
// transport/credstore) for what the API server is asked.
func TestBinaryLinksNoTypedClientset(t *testing.T) {
	deps := binaryDeps(t)
	require.Contains(t, deps, "k8s.io/client-go/dynamic", "go list -deps lists the binary's packages")
	banned := []struct{ prefix, why string }{
		{"k8s.io/client-go/kubernetes", "the typed clientset, its scheme and fakes register every API group at start"},
		{"k8s.io/client-go/informers", "informers pull in the typed clientset"},
		{"k8s.io/client-go/listers", "listers come with the informers: the hooks are stateless and read nothing through caches"},
	}
	for _, b := range banned {
		assertNotLinked(t, deps, b.prefix, b.why)
	}
}

// binaryDeps lists every package the binary links (go list -deps).
func binaryDeps(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	return strings.Fields(string(out))
}

// assertNotLinked fails for each package of deps under prefix, saying why
// it must not be there.
func assertNotLinked(t *testing.T, deps []string, prefix, why string) {
	t.Helper()
	for _, d := range deps {
		assert.False(t, strings.HasPrefix(d, prefix), "the binary links %s: %s", d, why)
	}
}
