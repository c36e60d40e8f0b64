package buildinfo

import "testing"

func TestFingerprintNamesTheBuild(t *testing.T) {
	base := Info{Version: "v1.2.0", Commit: "abc", GoVersion: "go1.26.8", Platform: "linux/amd64"}
	exe := executableDigest()
	if exe != executableDigest() {
		t.Fatal("the running executable reads the same twice")
	}
	seen := map[string]string{fingerprint(base, exe): "base"}
	for name, other := range map[string]struct {
		info Info
		exe  string
	}{
		"version":    {Info{Version: "v1.3.0", Commit: "abc", GoVersion: "go1.26.8", Platform: "linux/amd64"}, exe},
		"commit":     {Info{Version: "v1.2.0", Commit: "abd", GoVersion: "go1.26.8", Platform: "linux/amd64"}, exe},
		"go":         {Info{Version: "v1.2.0", Commit: "abc", GoVersion: "go1.27.0", Platform: "linux/amd64"}, exe},
		"platform":   {Info{Version: "v1.2.0", Commit: "abc", GoVersion: "go1.26.8", Platform: "linux/arm64"}, exe},
		"executable": {base, "another binary"},
		"shifted":    {Info{Version: "v1.2.0a", Commit: "bc", GoVersion: "go1.26.8", Platform: "linux/amd64"}, exe},
	} {
		fp := fingerprint(other.info, other.exe)
		if prev, ok := seen[fp]; ok {
			t.Errorf("a build differing in its %s shares the fingerprint of %s", name, prev)
		}
		seen[fp] = name
	}
	first := Fingerprint()
	if first == "" || Fingerprint() != first {
		t.Error("one process has one fingerprint")
	}
}
