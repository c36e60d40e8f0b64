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
// process 33 MiB resident, without them 28 MB and 21 MiB, which is what
// keeps the peak under load below its 64 MiB goal. Use the dynamic client
// (transport/kube, transport/credstore) for what the API server is asked.
func TestBinaryLinksNoTypedClientset(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	deps := strings.Fields(string(out))
	require.Contains(t, deps, "k8s.io/client-go/dynamic", "go list -deps lists the binary's packages")
	banned := []struct{ prefix, why string }{
		{"k8s.io/client-go/kubernetes", "the typed clientset, its scheme and fakes register every API group at start"},
		{"k8s.io/client-go/informers", "informers pull in the typed clientset"},
		{"k8s.io/client-go/listers", "listers come with the informers: the hooks are stateless and read nothing through caches"},
	}
	for _, b := range banned {
		for _, d := range deps {
			assert.False(t, strings.HasPrefix(d, b.prefix), "the binary links %s: %s", d, b.why)
		}
	}
}
