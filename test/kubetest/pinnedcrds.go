package kubetest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// pinnedCRDs are CRDs shipped in a module a nested module of test/ pins:
// the files <dir>/<group>_<resource>.yaml of the module.
type pinnedCRDs struct {
	nested, module, dir, group string
	resources                  []string
}

// applyPinnedCRDs installs them and waits until they are served.
func (e *Env) applyPinnedCRDs(ctx context.Context, p pinnedCRDs) (version string, err error) {
	version, dir, err := pinnedModule(ctx, p.nested, p.module)
	if err != nil {
		return "", err
	}
	var crds []*unstructured.Unstructured
	for _, res := range p.resources {
		name := p.group + "_" + res + ".yaml"
		raw, err := os.ReadFile(filepath.Join(dir, p.dir, name))
		if err != nil {
			return "", err
		}
		objs, err := decodeCRDs(name, raw)
		if err != nil {
			return "", err
		}
		crds = append(crds, objs...)
	}
	return version, e.applyCRDs(ctx, crds)
}

// pinnedModule is the version and module-cache directory of the module a
// nested module of test/ (test/<nested>) pins: go mod download fetches it
// through the module proxy when the cache does not hold it. A module that
// cannot be had is ErrAbsent.
func pinnedModule(ctx context.Context, nested, module string) (version, dir string, err error) {
	root, err := repoRoot()
	if err != nil {
		return "", "", fmt.Errorf("%w: %v", ErrAbsent, err)
	}
	cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json", module)
	cmd.Dir = filepath.Join(root, "test", nested)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", "", fmt.Errorf("%w: go mod download %s: %v: %s", ErrAbsent, module, err, lastLines(stderr.String()+stdout.String(), 5))
	}
	var mod struct{ Version, Dir string }
	if err := json.Unmarshal(stdout.Bytes(), &mod); err != nil || mod.Dir == "" {
		return "", "", fmt.Errorf("%w: go mod download %s printed no directory", ErrAbsent, module)
	}
	return mod.Version, mod.Dir, nil
}
