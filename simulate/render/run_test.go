package render

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/simulate/chain"
)

func refused(t *testing.T, err error, source, object, message string) {
	t.Helper()
	require.Error(t, err)
	var re *RefusedError
	require.True(t, errors.As(err, &re), "want a *RefusedError, got %T: %v", err, err)
	assert.Equal(t, source, re.Source)
	assert.Equal(t, object, re.Object)
	assert.Equal(t, message, re.Message, "the admission message, verbatim")
	assert.Equal(t, ExitRefused, ExitCode(err))
}

func TestRenderControlPlane(t *testing.T) {
	s := mustRender(t, credentials, controlPlane("default"), keystoneAdmin)
	objs := s.Objects()
	assert.Equal(t, "True/AllReady", condition(find(objs, "ControlPlane", "controlplane"), "Ready"))
	assert.Equal(t, "True/Registered", condition(find(objs, "ControlPlane", "controlplane"), "KeystoneRegistered"))
	assert.Equal(t, "True/AllBackendsProjected", condition(find(objs, "Glance", "controlplane-glance"), "BackendsReady"))
	assert.NotNil(t, find(objs, "GlanceBackend", "controlplane-glance-secondary"))
	assert.NotNil(t, find(objs, "Deployment", "controlplane-glance"))
}

func TestRenderRefusesTwoDefaultEntries(t *testing.T) {
	docs := parse(t, credentials, replaceAll(controlPlane("default"), "isDefault: false", "isDefault: true"))
	s, err := Render(docs, Options{})
	assert.Nil(t, s, "nothing is rendered after a refusal")
	refused(t, err, "in.yaml:17", "ControlPlane openstack/controlplane", `ControlPlane "controlplane": exactly one backends entry must set isDefault (found 2)`)
	assert.Equal(t, `in.yaml:17: ControlPlane openstack/controlplane refused by admission: ControlPlane "controlplane": exactly one backends entry must set isDefault (found 2)`, err.Error())
}

func TestRenderRefusesASecondSiblingDefault(t *testing.T) {
	docs := parse(t, credentials, glance,
		backend("primary", "glance", "garage-s3-credentials", true),
		backend("secondary", "glance", "garage-s3-credentials", true))
	_, err := Render(docs, Options{})
	refused(t, err, "in.yaml:37", "GlanceBackend openstack/secondary",
		`GlanceBackend "primary" attached to the same Glance "glance" is already marked isDefault; exactly one default store is allowed`)
}

func TestRenderRefusesReservedStoreID(t *testing.T) {
	docs := parse(t, credentials, glance, backend("database", "glance", "garage-s3-credentials", true))
	_, err := Render(docs, Options{})
	refused(t, err, "in.yaml:24", "GlanceBackend openstack/database",
		`GlanceBackend "database": its name is its store id (spec.storeId is unset), and store id "database" collides with a reserved store section (a reserved or operator-managed Glance store section of the same name): [database] holds options glance-api reads for itself`)
}

func TestRenderUsesTheGivenValidator(t *testing.T) {
	var seen []string
	v := func(obj, old chain.Object, stored []chain.Object) error {
		r := chain.RefOf(obj)
		seen = append(seen, fmt.Sprintf("%s/%s old=%t stored=%d", r.Kind, r.Name, old != nil, len(stored)))
		if r.Name == "secondary" {
			return errors.New("refused by the test")
		}
		return nil
	}
	docs := parse(t, glance, backend("primary", "glance", "x", true), backend("secondary", "glance", "x", false))
	_, err := Render(docs, Options{Validate: v})
	refused(t, err, "in.yaml:22", "GlanceBackend openstack/secondary", "refused by the test")
	assert.Equal(t, []string{"Glance/glance old=false stored=0", "GlanceBackend/primary old=false stored=1",
		"GlanceBackend/secondary old=false stored=2"}, seen, "each object is admitted against the objects applied before it")
}

func TestRenderRoundLimit(t *testing.T) {
	docs := parse(t, credentials, controlPlane("default"))
	s, err := Render(docs, Options{MaxRounds: 1})
	require.Error(t, err)
	var nc *NotConvergedError
	require.True(t, errors.As(err, &nc))
	assert.Equal(t, ExitNotConverged, ExitCode(err))
	assert.True(t, IsNotConverged(err))
	assert.Equal(t, "the hooks did not converge: objects still changed after 1 round (raise --max-rounds, or look for two hooks undoing each other)", err.Error())
	require.NotNil(t, s, "the state reached is returned")
	assert.False(t, s.Converged)
	assert.Equal(t, 1, s.Rounds)
	assert.NotNil(t, find(s.Objects(), "Glance", "controlplane-glance"), "round 1 projected the Glance")

	s, err = Render(docs, Options{MaxRounds: DefaultMaxRounds})
	require.NoError(t, err)
	assert.Less(t, s.Rounds, DefaultMaxRounds)
}

func TestRenderIsDeterministic(t *testing.T) {
	a := yamlOf(t, mustRender(t, credentials, controlPlane("default")).Objects(), OutputOptions{KeepServerFields: true})
	b := yamlOf(t, mustRender(t, credentials, controlPlane("default")).Objects(), OutputOptions{KeepServerFields: true})
	assert.Equal(t, a, b)
}

func TestUpdateAppliesInOrderAsKubectlWould(t *testing.T) {
	base := []string{credentials, glance}
	s := mustRender(t, append(base, backend("primary", "glance", "garage-s3-credentials", true),
		backend("secondary", "glance", "garage-s3-credentials", false))...)

	// Promoting secondary before releasing primary is refused, as the
	// guide's two-patch sequence says.
	err := s.Update(parse(t, append(base, backend("secondary", "glance", "garage-s3-credentials", true),
		backend("primary", "glance", "garage-s3-credentials", false))...), Options{})
	refused(t, err, "in.yaml:24", "GlanceBackend openstack/secondary",
		`GlanceBackend "primary" attached to the same Glance "glance" is already marked isDefault; exactly one default store is allowed`)

	// Release first, then promote: admitted.
	s = mustRender(t, append(base, backend("primary", "glance", "garage-s3-credentials", true),
		backend("secondary", "glance", "garage-s3-credentials", false))...)
	require.NoError(t, s.Update(parse(t, append(base, backend("primary", "glance", "garage-s3-credentials", false),
		backend("secondary", "glance", "garage-s3-credentials", true))...), Options{}))
	assert.Equal(t, "secondary", find(s.Objects(), "Glance", "glance")["status"].(map[string]any)["defaultBackend"])
}

func TestUpdateDeletesInputsLeftOut(t *testing.T) {
	s := mustRender(t, credentials, glance, backend("primary", "glance", "garage-s3-credentials", true),
		backend("secondary", "glance", "garage-s3-credentials", false))
	require.NotNil(t, find(s.Objects(), "Secret", "secondary-store"))
	require.NoError(t, s.Update(parse(t, credentials, glance, backend("primary", "glance", "garage-s3-credentials", true)), Options{}))
	assert.Nil(t, find(s.Objects(), "GlanceBackend", "secondary"))
	assert.Nil(t, find(s.Objects(), "Secret", "secondary-store"), "what the deleted backend owned goes with it")
}

// TestUpdateRefusesAHandMadeDefaultOnAControlPlane is the guide's Step 4: a
// hand-made backend attached to the projected Glance cannot be the default.
func TestUpdateRefusesAHandMadeDefaultOnAControlPlane(t *testing.T) {
	s := mustRender(t, credentials, controlPlane("default"))
	err := s.Update(parse(t, credentials, controlPlane("default"),
		backend("archive", "controlplane-glance", "garage-s3-credentials", true)), Options{})
	refused(t, err, "in.yaml:41", "GlanceBackend openstack/archive",
		`GlanceBackend "controlplane-glance-default" attached to the same Glance "controlplane-glance" is already marked isDefault; exactly one default store is allowed`)

	// As a non-default store it attaches and stays user-owned.
	require.NoError(t, s.Update(parse(t, credentials, controlPlane("default"),
		backend("archive", "controlplane-glance", "garage-s3-credentials", false)), Options{}))
	assert.Equal(t, "True/AllReady", condition(find(s.Objects(), "GlanceBackend", "archive"), "Ready"))
	assert.Contains(t, find(s.Objects(), "Glance", "controlplane-glance")["status"].(map[string]any)["backendsSecretName"], "controlplane-glance-backends-")
}

func TestUpdateRefusesImmutableChanges(t *testing.T) {
	s := mustRender(t, credentials, glance, backend("primary", "glance", "garage-s3-credentials", true))
	err := s.Update(parse(t, credentials, glance, backend("primary", "other", "garage-s3-credentials", true)), Options{})
	refused(t, err, "in.yaml:24", "GlanceBackend openstack/primary",
		`GlanceBackend "primary": spec.glanceRef: glanceRef is immutable`)
}
