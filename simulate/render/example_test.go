package render_test

import (
	"fmt"

	"github.com/c5c3/glance-hooks/simulate/render"
)

// Render runs the hooks on the guide's ControlPlane until nothing changes,
// without a cluster; ConditionsOf reads what a parent then reports.
func ExampleRender() {
	docs, err := render.ReadPaths([]string{"../../examples/controlplane.yaml"}, nil, "openstack")
	if err != nil {
		fmt.Println(err)
		return
	}
	state, err := render.Render(docs, render.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("converged:", state.Converged)
	for _, o := range state.Objects() {
		if o["kind"] != "Glance" {
			continue
		}
		for _, c := range render.ConditionsOf(o) {
			fmt.Println(c.Type, c.Status, c.Reason)
		}
	}
	// Output:
	// converged: true
	// BackendsReady True AllBackendsProjected
	// ConfigRendered True Rendered
	// DatabaseReady True DatabaseSynced
	// ServiceUserReady True CredentialsAvailable
	// DeploymentReady True DeploymentReady
	// HTTPRouteReady True HTTPRouteNotRequired
	// NetworkPolicyReady True NetworkPolicyNotRequired
	// SecretsReady True SecretsAvailable
	// GlanceAPIReady True APIHealthy
	// HPAReady True HPANotRequired
	// Ready True AllReady
	// ExtraConfigHealthy True NoOwnedKeysOverridden
	// DBPurgeReady True DBPurgeScheduled
	// StoresReachable True StoresNotChecked
}
