package main

// The packages whose types the CRDs embed, imported so go.mod pins them at
// the version of the service's module (a test in the schemas package
// compares the two): controller-gen reads their source from that version.
import (
	_ "k8s.io/api/apps/v1"
	_ "k8s.io/api/core/v1"
	_ "k8s.io/api/networking/v1"

	// This API's own types whose CRD lines are generated (the autoscaling,
	// image cache and database purge parts, hooks/contract/api/autoscaling.go,
	// imagecache.go and dbpurge.go), read from this checkout.
	_ "github.com/c5c3/glance-hooks/hooks/contract/api"
)
