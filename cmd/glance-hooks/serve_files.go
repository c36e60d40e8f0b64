package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// mountedFile is a file serve reads at start, with what an operator does
// when it is not there: the image's default command names the chart's
// paths, so `docker run` of the image without its Secrets ends here.
type mountedFile struct {
	flag, path, hint string
}

// mountedFiles are the files the flags name, in the order serve reads them.
func (o *serveOptions) mountedFiles() []mountedFile {
	tls := func(flag, path string) mountedFile {
		return mountedFile{flag, path, fmt.Sprintf("the serving certificate: mount a kubernetes.io/tls Secret (keys tls.crt and tls.key) at %s, as the Helm chart does (docker run -v <dir>:%s:ro), "+
			"or pass --tls-cert-file and --tls-key-file; to try the service on your own machine, serve --insecure-plain-http --listen 127.0.0.1:8080", filepath.Dir(path), filepath.Dir(path))}
	}
	return []mountedFile{
		tls("--tls-cert-file", o.certFile),
		tls("--tls-key-file", o.keyFile),
		{"--auth-token-file", o.tokenFile, fmt.Sprintf("the token Metacontroller sends to the hooks: mount a Secret with the key %s at %s, as the Helm chart does, "+
			"or pass --auth-token-file with a file that holds it", filepath.Base(o.tokenFile), filepath.Dir(o.tokenFile))},
		{"--client-ca-file", o.clientCAFile, "the CA bundle that signs the callers' client certificates: mount it there, or leave --client-ca-file out"},
	}
}

// checkMounted finds the first named file that does not exist and says
// what to mount or pass instead; other read errors are left to the reader,
// which names them.
func checkMounted(files []mountedFile) error {
	for _, f := range files {
		if f.path == "" {
			continue
		}
		if _, err := os.Stat(f.path); errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s %s does not exist: it is %s", f.flag, f.path, f.hint)
		}
	}
	return nil
}
