package kubetest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// GatewayAPIModule is the module test/gatewayapi pins; its standard
// channel's CRDs are what ApplyGatewayAPI installs.
const GatewayAPIModule = "sigs.k8s.io/gateway-api"

// gatewayAPICRDs are the standard channel's CRDs a Glance's route needs:
// the route, and what it attaches to.
var gatewayAPICRDs = []string{"gatewayclasses", "gateways", "httproutes", "referencegrants"}

// ApplyGatewayAPI installs the Gateway API CRDs of the release test/gatewayapi
// pins, read from the Go module cache (go mod download fetches the module
// through the module proxy when it is not there), and waits until they are
// served. A module that cannot be had is ErrAbsent: tests skip on it unless
// KUBETEST_REQUIRE=1.
func (e *Env) ApplyGatewayAPI(ctx context.Context) (version string, err error) {
	return e.applyPinnedCRDs(ctx, pinnedCRDs{nested: "gatewayapi", module: GatewayAPIModule,
		dir: filepath.Join("config", "crd", "standard"), group: "gateway.networking.k8s.io", resources: gatewayAPICRDs})
}

// pinnedCRDs are CRDs shipped in a module a nested module of test/ pins:
// the files <dir>/<group>_<resource>.yaml of the module.
type pinnedCRDs struct {
	nested, module, dir, group string
	resources                  []string
}

// applyPinnedCRDs installs them and waits until they are served.
func (e *Env) applyPinnedCRDs(ctx context.Context, p pinnedCRDs) (version string, err error) {
	version, dir, err := pinnedModule(ctx, p.nested, p.module)
	if err != nil {
		return "", err
	}
	var crds []*unstructured.Unstructured
	for _, res := range p.resources {
		name := p.group + "_" + res + ".yaml"
		raw, err := os.ReadFile(filepath.Join(dir, p.dir, name))
		if err != nil {
			return "", err
		}
		objs, err := decodeCRDs(name, raw)
		if err != nil {
			return "", err
		}
		crds = append(crds, objs...)
	}
	return version, e.applyCRDs(ctx, crds)
}

// GatewayAPI is ApplyGatewayAPI for a test: it skips when the module cannot
// be had, unless KUBETEST_REQUIRE=1, and returns the version installed.
func (e *Env) GatewayAPI(t testing.TB) string {
	t.Helper()
	v, err := e.ApplyGatewayAPI(context.Background())
	if err != nil {
		skipOrFail(t, err)
	}
	return v
}

// pinnedModule is the version and module-cache directory of the module a
// nested module of test/ (test/<nested>) pins: go mod download fetches it
// through the module proxy when the cache does not hold it. A module that
// cannot be had is ErrAbsent.
func pinnedModule(ctx context.Context, nested, module string) (version, dir string, err error) {
	root, err := repoRoot()
	if err != nil {
		return "", "", fmt.Errorf("%w: %v", ErrAbsent, err)
	}
	cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json", module)
	cmd.Dir = filepath.Join(root, "test", nested)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", "", fmt.Errorf("%w: go mod download %s: %v: %s", ErrAbsent, module, err, lastLines(stderr.String()+stdout.String(), 5))
	}
	var mod struct{ Version, Dir string }
	if err := json.Unmarshal(stdout.Bytes(), &mod); err != nil || mod.Dir == "" {
		return "", "", fmt.Errorf("%w: go mod download %s printed no directory", ErrAbsent, module)
	}
	return mod.Version, mod.Dir, nil
}
