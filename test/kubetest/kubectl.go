package kubetest

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Kubectl runs the kubectl built with the API server (same version, from
// hack/build-kube.sh) against the environment, with stdin as its input (may
// be empty), and returns its stdout and stderr. A non-zero exit is returned
// as err, not a failure: tests that expect a refusal inspect stderr.
func (e *Env) Kubectl(t testing.TB, stdin string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	bin := filepath.Join(e.Bins, "kubectl")
	full := append([]string{"--kubeconfig=" + e.Kubeconfig, "--cache-dir=" + filepath.Join(e.Dir, "kubectl-cache")}, args...)
	cmd := exec.CommandContext(context.Background(), bin, full...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+e.Kubeconfig)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	return out.String(), errb.String(), err
}

// Namespace creates the namespace when it does not exist yet and returns its
// name. Nothing deletes namespaces here (no controller manager runs), so
// tests share them.
func (e *Env) Namespace(t testing.TB, name string) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	_, err := e.Kube.CoreV1().Namespaces().Create(context.Background(), ns, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("creating namespace %s: %v", name, err)
	}
	return name
}
