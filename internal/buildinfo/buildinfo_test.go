package buildinfo

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The job image a build defaults to, and whether it says the image may not
// be its own code.
func TestImage(t *testing.T) {
	cases := map[string]struct {
		reason     string
		info       Info
		image      string
		isRelease  bool
		caveatHas  string
		caveatNone bool
	}{
		"release": {
			reason: "a release build runs its own release image, without a word",
			info:   Info{Version: "0.2.0", Release: "0.2.0"}, image: ImageRepository + ":0.2.0", isRelease: true, caveatNone: true,
		},
		"development build": {
			reason: "a development build runs the image of the release it descends from, which exists, and says so",
			info:   Info{Version: "0.2.0-dev.g0123456789ab", Release: "0.2.0"}, image: ImageRepository + ":0.2.0",
			caveatHas: "development build 0.2.0-dev.g0123456789ab defaults to " + ImageRepository + ":0.2.0, the image of release 0.2.0",
		},
		"unstamped": {
			reason: "go run and go test name no release: the image is named after the version, and no release publishes it",
			info:   Info{Version: DevVersion}, image: ImageRepository + ":dev",
			caveatHas: "build dev names no release: no release publishes " + ImageRepository + ":dev",
		},
		"v prefix": {
			reason: "a v-prefixed version stamped by hand still gives the chart's tag form",
			info:   Info{Version: "v1.0.0"}, image: ImageRepository + ":1.0.0", caveatHas: "names no release",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.image, tc.info.Image()); diff != "" {
				t.Errorf("%s: Image (-want +got):\n%s", tc.reason, diff)
			}
			if got := tc.info.IsRelease(); got != tc.isRelease {
				t.Errorf("%s: IsRelease = %v", tc.reason, got)
			}
			caveat := tc.info.ImageCaveat()
			if tc.caveatNone != (caveat == "") || !strings.Contains(caveat, tc.caveatHas) {
				t.Errorf("%s: ImageCaveat = %q, want it to hold %q", tc.reason, caveat, tc.caveatHas)
			}
		})
	}
}
