package services

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/transport/storecheck"
)

// A stopped S3 server is an outage the store check sees at once, and
// started again it serves its buckets as before, on the same endpoint: the
// check sees it back as soon as its cached verdict is older than the TTL.
func TestS3StopsAndStartsAgain(t *testing.T) {
	s := StartS3(t, S3Options{Buckets: []string{"glance-images"}})
	check := storecheck.New(time.Second, 10*time.Second)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	require.True(t, check.Check(s.Endpoint, t0).Reachable, "a running server answers")

	s.Stop(t)
	down := check.Check(s.Endpoint, t0.Add(10*time.Second))
	assert.False(t, down.Reachable)
	assert.Contains(t, down.Detail, "connection refused", "the fault is named")

	s.Start(t)
	assert.False(t, check.Check(s.Endpoint, t0.Add(15*time.Second)).Reachable, "within the TTL the verdict is kept")
	up := check.Check(s.Endpoint, t0.Add(20*time.Second))
	assert.True(t, up.Reachable, "past it the server is seen back: %s", up.Detail)
	assert.Equal(t, map[string]map[string]S3Object{"glance-images": {}}, s.Objects(t, "glance-images"), "its buckets are there again")
}
