package glance

import (
	"github.com/c5c3/glance-hooks/hooks/contract/release"
	"github.com/c5c3/glance-hooks/hooks/glance/decide"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
	"github.com/c5c3/glance-hooks/hooks/glance/render"
)

// The names other packages read of the Glance hook, under the names they
// have always had here; each is defined once, in the stage it belongs to.
const (
	// FirstRenderWait is how long the first render waits for stores on
	// their way (decide/wait.go).
	FirstRenderWait = decide.FirstRenderWait
	// EnvCABundle is botocore's process-wide CA bundle (model/caenv.go).
	EnvCABundle = model.EnvCABundle
	// The files and directories of glance-api's pods and how long they
	// take to stop (render/config.go, render/launch.go,
	// render/logging.go, render/stopping.go).
	PasteFile               = render.PasteFile
	UWSGIFile               = render.UWSGIFile
	StagingDir              = render.StagingDir
	LockDir                 = render.LockDir
	LoggingFile             = render.LoggingFile
	TerminationGraceSeconds = render.TerminationGraceSeconds
	PreStopSleepSeconds     = render.PreStopSleepSeconds
	// How glance-api is started (render/launch.go).
	Eventlet = render.Eventlet
	UWSGI    = render.UWSGI
)

// LaunchMode is how glance-api is started (render/launch.go).
type LaunchMode = render.LaunchMode

// LaunchModeOf is how glance-api of a release is started (render/launch.go).
func LaunchModeOf(rel release.Release) LaunchMode { return render.LaunchModeOf(rel) }
