package admission

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
)

// TestDBPurgeNameAtCreateOnly: a new Glance (and the Glance a new
// ControlPlane projects, or one an UPDATE starts running) is held to the
// purge CronJob's name; an UPDATE is not otherwise, so a Glance admitted
// before with a longer name keeps working.
func TestDBPurgeNameAtCreateOnly(t *testing.T) {
	long := strings.Repeat("g", names.MaxGlanceNameForDBPurge+1)
	named := func(g *api.Glance) { g.Name = long }
	req := create(t, guideGlance(named))
	msg := denied(t, req, Review(context.Background(), req, &fakeLister{}), 422)
	assert.Contains(t, msg, "metadata.name: name must be at most 43 characters: the db-purge CronJob appends \"-db-purge\"", "a new Glance without spec.dbPurge")

	upd := update(t, guideGlance(named), guideGlance(named))
	allowed(t, upd, Review(context.Background(), upd, &fakeLister{}))

	cp := create(t, guideControlPlane(func(c *api.ControlPlane) { c.Name = strings.Repeat("c", 37) }))
	msg = denied(t, cp, Review(context.Background(), cp, &fakeLister{}), 422)
	assert.Equal(t, `ControlPlane "`+strings.Repeat("c", 37)+`": metadata.name: the projected Glance child CR name would be 44 characters; the Glance CRD caps metadata.name at 43 `+
		"(its db-purge CronJob appends a suffix, and Kubernetes caps CronJob names at 52 characters), so the "+
		"ControlPlane name must be at most 36 characters when spec.services.glance is set", msg, "the reference ControlPlane's words")
	ok := create(t, guideControlPlane(func(c *api.ControlPlane) { c.Name = strings.Repeat("c", 36) }))
	allowed(t, ok, Review(context.Background(), ok, &fakeLister{}))

	longCP := func(c *api.ControlPlane) { c.Name = strings.Repeat("c", 37) }
	withoutGlance := guideControlPlane(longCP, func(c *api.ControlPlane) { c.Spec.Services.Glance = nil })
	enabled := update(t, guideControlPlane(longCP), withoutGlance)
	assert.Contains(t, denied(t, enabled, Review(context.Background(), enabled, &fakeLister{}), 422),
		"ControlPlane name must be at most 36 characters", "an update that starts running Glance makes a new Glance, as the reference holds it")
	running := update(t, guideControlPlane(longCP), guideControlPlane(longCP))
	allowed(t, running, Review(context.Background(), running, &fakeLister{}))
}
