package glance

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/release"
	"github.com/c5c3/glance-hooks/hooks/glance/decide"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
	"github.com/c5c3/glance-hooks/hooks/glance/render"
	"github.com/c5c3/glance-hooks/hooks/glance/report"
)

// The names other packages read of the Glance hook, under the names they
// have always had here; each is defined once, in the stage it belongs to.
const (
	// FirstRenderWait is how long the first render waits for stores on
	// their way (decide/wait.go).
	FirstRenderWait = decide.FirstRenderWait
	// EnvCABundle is botocore's process-wide CA bundle (model/store.go).
	EnvCABundle = model.EnvCABundle
	// The files and directories of glance-api's pods and how long they
	// take to stop (render/config.go, render/launch.go, render/deployment.go).
	PasteFile               = render.PasteFile
	UWSGIFile               = render.UWSGIFile
	StagingDir              = render.StagingDir
	LockDir                 = render.LockDir
	TerminationGraceSeconds = render.TerminationGraceSeconds
	PreStopSleepSeconds     = render.PreStopSleepSeconds
	// glance-api's container, its port, its health check and how many
	// hashed configs are kept (render/deployment.go, render/history.go).
	ContainerName = render.ContainerName
	PortName      = render.PortName
	HealthPath    = render.HealthPath
	HistoryLimit  = render.HistoryLimit
	// The Event reason of an extraConfig that overrides a key the hooks
	// own (report/events.go).
	EventExtraConfigOwnedKey = report.EventExtraConfigOwnedKey
	// How glance-api is started (render/launch.go).
	Eventlet = render.Eventlet
	UWSGI    = render.UWSGI
)

// LaunchMode is how glance-api is started (render/launch.go).
type LaunchMode = render.LaunchMode

// LaunchModeOf is how glance-api of a release is started (render/launch.go).
func LaunchModeOf(rel release.Release) LaunchMode { return render.LaunchModeOf(rel) }

// PodMounts reads which ConfigMap and backends Secret a pod spec mounts
// (render/deployment.go).
func PodMounts(volumes []corev1.Volume) (configMap, backendsSecret string) {
	return render.PodMounts(volumes)
}
