package buildinfo

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"sync"
)

// Fingerprint identifies this build wherever an answer it gave may be
// reused later (the hooks' ETags, which Metacontroller keeps): two builds
// that might answer the same request differently must never share one. It
// is a digest of the Info (version, commit, Go release, platform) and of
// the executable's own bytes, so a build of uncommitted changes or an
// unstamped dev build differs from every other build too, while replicas
// of one image agree. It is computed once per process; when the
// executable cannot be read it holds a random value instead, which only
// costs reuse across processes.
var Fingerprint = sync.OnceValue(func() string { return fingerprint(Get(), executableDigest()) })

func fingerprint(i Info, executable string) string {
	h := sha256.New()
	for _, s := range []string{i.Version, i.Commit, i.GoVersion, i.Platform, executable} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// executableDigest is the SHA-256 of the running executable, or a random
// value when it cannot be read.
func executableDigest() string {
	h := sha256.New()
	path, err := os.Executable()
	if err == nil {
		var f *os.File
		if f, err = os.Open(path); err == nil {
			_, err = io.Copy(h, f)
			_ = f.Close()
		}
	}
	if err != nil {
		h.Reset()
		h.Write([]byte("unreadable executable "))
		h.Write([]byte(rand.Text()))
	}
	return hex.EncodeToString(h.Sum(nil))
}
