// Package buildinfo says which build of glance-hooks is running: the
// version and commit stamped at link time, and the Go toolchain and
// platform. The `version` command, the `serving` log line and the
// glance_hooks_build_info metric all read it, so they always agree.
package buildinfo

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// Stamped at link time by hack/build.sh (make build, the Dockerfile, make
// image):
//
//	-X github.com/c5c3/glance-hooks/internal/buildinfo.version=v0.1.0
//	-X github.com/c5c3/glance-hooks/internal/buildinfo.commit=<git sha>
//
// They are variables only so the linker can set them; read them through Get.
var (
	version = ""
	commit  = ""
)

// Unknown is what a field reads when the build did not record it.
const Unknown = "unknown"

// DevVersion is the version of a build that was not stamped (go run, go
// build by hand, go test).
const DevVersion = "dev"

// Info identifies one build.
type Info struct {
	Version   string `json:"version"`
	Commit    string `json:"commit"`
	GoVersion string `json:"goVersion"`
	Platform  string `json:"platform"`
}

// Get returns the running build's Info. A build that was not stamped reads
// DevVersion, and the commit Go's own VCS stamping recorded, if any.
func Get() Info {
	i := Info{Version: version, Commit: commit, GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if i.Version == "" {
		i.Version = DevVersion
	}
	if i.Commit == "" {
		i.Commit = vcsRevision()
	}
	return i
}

// String is the one line `glance-hooks version` prints.
func (i Info) String() string {
	return fmt.Sprintf("glance-hooks %s (commit %s, %s, %s)", i.Version, i.Commit, i.GoVersion, i.Platform)
}

func vcsRevision() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && s.Value != "" {
				return s.Value
			}
		}
	}
	return Unknown
}

// ImageRepository is where this project's release images are published.
const ImageRepository = "ghcr.io/c5c3/glance-hooks"

// Image is this build's release image: ImageRepository tagged with the
// version without its leading "v" (the chart's appVersion, 0.1.0 for
// v0.1.0). It is what the ControlPlane's registration Jobs run unless
// `serve --job-image` says otherwise (the chart passes the exact image its
// own pods run).
func (i Info) Image() string {
	return ImageRepository + ":" + strings.TrimPrefix(i.Version, "v")
}
