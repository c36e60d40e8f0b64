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
//	-X github.com/c5c3/glance-hooks/internal/buildinfo.version=0.2.0-dev.g0123abcd
//	-X github.com/c5c3/glance-hooks/internal/buildinfo.release=0.2.0
//	-X github.com/c5c3/glance-hooks/internal/buildinfo.commit=<git sha>
//
// version is this build's (hack/version.sh), release the VERSION file's:
// equal for a release build, apart for a development build after it.
// They are variables only so the linker can set them; read them through Get.
var (
	version = ""
	release = ""
	commit  = ""
)

// Unknown is what a field reads when the build did not record it.
const Unknown = "unknown"

// DevVersion is the version of a build that was not stamped (go run, go
// build by hand, go test).
const DevVersion = "dev"

// Info identifies one build.
type Info struct {
	Version string `json:"version"`
	// Release is the release this build is or descends from (the VERSION
	// file); empty when the build was not stamped.
	Release   string `json:"release,omitempty"`
	Commit    string `json:"commit"`
	GoVersion string `json:"goVersion"`
	Platform  string `json:"platform"`
}

// Get returns the running build's Info. A build that was not stamped reads
// DevVersion, and the commit Go's own VCS stamping recorded, if any.
func Get() Info {
	i := Info{Version: version, Release: release, Commit: commit, GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
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

// ImageRepository is where this project's release images are published
// (`make push REGISTRY=ghcr.io/c5c3`, docs/release.md).
const ImageRepository = "ghcr.io/c5c3/glance-hooks"

// Image is the release image for this build: ImageRepository tagged with
// the release (the chart's appVersion and the tag `make push` pushes for
// it), which is this build's own image for a release build and the image
// of the release a development build descends from. An unstamped build
// (go run, go test) has no release and names its own version. It is what
// the ControlPlane's registration Jobs run unless `serve --job-image` says
// otherwise (the chart passes the exact image its own pods run).
func (i Info) Image() string {
	tag := i.Release
	if tag == "" {
		tag = i.Version
	}
	return ImageRepository + ":" + strings.TrimPrefix(tag, "v")
}

// IsRelease reports whether this build is the release it names, so its
// Image runs the same code; a development build's Image may not.
func (i Info) IsRelease() bool {
	return i.Release != "" && i.Version == i.Release
}

// ImageCaveat says why Image may not run this build's code, for the
// operator of a build that is no release; empty for a release build.
func (i Info) ImageCaveat() string {
	if i.IsRelease() {
		return ""
	}
	if i.Release == "" {
		return fmt.Sprintf("build %s names no release: no release publishes %s; give this build's own image", i.Version, i.Image())
	}
	return fmt.Sprintf("development build %s defaults to %s, the image of release %s it descends from, whose keystone command may not take what this build renders; give this build's own image (make push)", i.Version, i.Image(), i.Release)
}
