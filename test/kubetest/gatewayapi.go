package kubetest

import (
	"context"
	"path/filepath"
	"testing"
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
