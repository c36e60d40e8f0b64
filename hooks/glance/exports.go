package glance

import (
	"github.com/c5c3/glance-hooks/hooks/glance/decide"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
)

// The names other packages read of the Glance hook, under the names they
// have always had here; each is defined once, in the stage it belongs to.
const (
	// FirstRenderWait is how long the first render waits for stores on
	// their way (decide/wait.go).
	FirstRenderWait = decide.FirstRenderWait
	// EnvCABundle is botocore's process-wide CA bundle (model/caenv.go).
	EnvCABundle = model.EnvCABundle
)
