package datapath

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/c5c3/glance-hooks/hooks/glance"
	"github.com/c5c3/glance-hooks/test/proc"
)

// pod is one glance-api "pod" on this machine: the Deployment's container
// with its ConfigMap and Secret volumes written to dir.
type pod struct {
	dir     string
	command []string          // the container's command and rewritten args
	config  []string          // the --config-file and --config-dir arguments among them
	probe   string            // the path of the startup probe
	env     []string          // clean base + the container's env, resolved
	mounted map[string]string // container file path -> file on disk
	port    int
	url     string
	proc    *proc.Process
	started time.Duration // exec until the startup probe passed
}

// newPod reads the Deployment the hooks rendered and lays its volumes out
// under dir: each key of the mounted ConfigMap and Secret becomes a file,
// byte for byte, in a directory standing for the volume's mountPath. Only
// the directory part of the --config-file and --config-dir arguments is
// rewritten to those directories. One extra --config-file, last (oslo.config
// gives later files precedence), holds what a loopback test without a mount
// namespace cannot have: a loopback port, one worker, its own state dirs,
// the paste file where it is on disk and, when noKeystone is set, no
// Keystone (an empty paste flavor and an unauthenticated pipeline beside the
// rendered one, so every request is an admin context).
func newPod(t *testing.T, c *cluster, dir, name string, noKeystone bool) *pod {
	t.Helper()
	d := c.deployment(name)
	var ctr *corev1.Container
	for i := range d.Spec.Template.Spec.Containers {
		if d.Spec.Template.Spec.Containers[i].Name == glance.ContainerName {
			ctr = &d.Spec.Template.Spec.Containers[i]
		}
	}
	if ctr == nil {
		t.Fatalf("Deployment %s has no container %s", name, glance.ContainerName)
	}
	p := &pod{dir: dir}
	dirs, mounted := layVolumes(t, c, dir, d.Spec.Template.Spec, *ctr)
	p.mounted = mounted
	args, err := rewriteConfigFiles(ctr.Args, dirs)
	if err != nil {
		t.Fatalf("Deployment %s: %v", name, err)
	}
	p.port = proc.FreePort(t)
	p.url = "http://" + podIP + ":" + strconv.Itoa(p.port)
	if sp := ctr.StartupProbe; sp != nil && sp.HTTPGet != nil {
		p.probe = sp.HTTPGet.Path
	} else {
		t.Fatalf("Deployment %s: container %s has no HTTP startup probe", name, ctr.Name)
	}
	paste, ok := p.mounted[glance.PasteConfig]
	if !ok {
		t.Fatalf("Deployment %s: nothing is mounted at %s, the paste file the config names", name, glance.PasteConfig)
	}
	if noKeystone {
		// The rendered pipeline is the keystone flavour only; without
		// Keystone the test adds Glance's unauthenticated one beside it.
		rendered, err := os.ReadFile(paste)
		if err != nil {
			t.Fatal(err)
		}
		paste = filepath.Join(dir, "loopback-paste.ini")
		noAuth := `
[pipeline:glance-api]
pipeline = cors healthcheck http_proxy_to_wsgi versionnegotiation osprofiler unauthenticated-context rootapp

[filter:unauthenticated-context]
paste.filter_factory = glance.api.middleware.context:UnauthenticatedContextMiddleware.factory
`
		if err := os.WriteFile(paste, append(rendered, noAuth...), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	layer := filepath.Join(dir, "loopback-test.conf")
	state := func(s string) string {
		d := filepath.Join(dir, s)
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
		return d
	}
	text := fmt.Sprintf(`# What a loopback test cannot take from the rendered config.
[DEFAULT]
bind_port = %d
workers = 1

[os_glance_staging_store]
filesystem_store_datadir = %s

[os_glance_tasks_store]
filesystem_store_datadir = %s

[oslo_concurrency]
lock_path = %s

[paste_deploy]
config_file = %s
`, p.port, state("staging"), state("tasks"), state("lock"), paste)
	if noKeystone {
		text += "# No Keystone: every request is an admin context.\nflavor =\n"
	}
	if err := os.WriteFile(layer, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	args = append(args, "--config-file="+layer)
	for i := 0; i < len(args); i++ {
		switch {
		case strings.HasPrefix(args[i], "--config-file="), strings.HasPrefix(args[i], "--config-dir="):
			p.config = append(p.config, args[i])
		case (args[i] == "--config-file" || args[i] == "--config-dir") && i+1 < len(args):
			p.config = append(p.config, args[i], args[i+1])
			i++
		}
	}
	p.command = commandOf(t, *ctr, args)
	// An environment value naming a mounted file (AWS_CA_BUNDLE, the
	// process-wide CA bundle) is mapped to that file on disk, as the
	// --config-file arguments are.
	for _, e := range resolveEnv(t, c, ctr.Env) {
		name, value, _ := strings.Cut(e, "=")
		if host, ok := p.mounted[value]; ok {
			e = name + "=" + host
		}
		p.env = append(p.env, e)
	}
	p.env = append(proc.CleanEnv(state("home")), p.env...)
	return p
}

// projectItems is what a ConfigMap or Secret volume holds, file name ->
// bytes: every key, or with items only those keys under their paths.
func projectItems(t *testing.T, data map[string][]byte, items []corev1.KeyToPath, volume string) map[string][]byte {
	t.Helper()
	if len(items) == 0 {
		return data
	}
	out := map[string][]byte{}
	for _, it := range items {
		b, ok := data[it.Key]
		if !ok {
			t.Fatalf("volume %s: its object has no key %s", volume, it.Key)
		}
		out[it.Path] = b
	}
	return out
}

// commandOf is a container's command, found on PATH (the one difference
// from the image: where the binaries live), and its arguments.
func commandOf(t *testing.T, ctr corev1.Container, args []string) []string {
	t.Helper()
	if len(ctr.Command) == 0 {
		t.Fatalf("container %s has no command", ctr.Name)
	}
	bin, err := exec.LookPath(ctr.Command[0])
	if err != nil {
		t.Fatalf("the container's command %q: %v", ctr.Command[0], err)
	}
	return append(append([]string{bin}, ctr.Command[1:]...), args...)
}

// layVolumes writes the ConfigMap and Secret volumes a container mounts
// under dir: each key becomes a file, byte for byte (with the Secret's
// mode), in a directory standing for the volume's mountPath. It returns
// mountPath -> directory and container file path -> file. emptyDirs are left
// to the caller.
func layVolumes(t *testing.T, c *cluster, dir string, spec corev1.PodSpec, ctr corev1.Container) (dirs, mounted map[string]string) {
	t.Helper()
	volumes := map[string]corev1.Volume{}
	for _, v := range spec.Volumes {
		volumes[v.Name] = v
	}
	dirs, mounted = map[string]string{}, map[string]string{}
	for _, vm := range ctr.VolumeMounts {
		v := volumes[vm.Name]
		var files map[string][]byte
		mode := os.FileMode(0o644)
		switch {
		case v.ConfigMap != nil:
			files = projectItems(t, c.configMapData(v.ConfigMap.Name), v.ConfigMap.Items, v.Name)
		case v.Secret != nil:
			files = projectItems(t, c.secretData(v.Secret.SecretName), v.Secret.Items, v.Name)
			if v.Secret.DefaultMode != nil {
				mode = os.FileMode(*v.Secret.DefaultMode)
			}
		default:
			continue
		}
		host := filepath.Join(dir, "volume-"+vm.Name)
		if err := os.MkdirAll(host, 0o755); err != nil {
			t.Fatal(err)
		}
		for k, b := range files {
			if err := os.WriteFile(filepath.Join(host, k), b, mode); err != nil {
				t.Fatal(err)
			}
			mounted[path.Join(vm.MountPath, k)] = filepath.Join(host, k)
		}
		dirs[vm.MountPath] = host
	}
	return dirs, mounted
}

// rewriteConfigFiles maps each --config-file argument's directory, and each
// --config-dir, (a volume's mountPath) to the directory on disk standing for
// it. File names are kept.
func rewriteConfigFiles(args []string, dirs map[string]string) ([]string, error) {
	out := make([]string, 0, len(args))
	mapFile := func(p string) (string, error) {
		host, ok := dirs[path.Dir(p)]
		if !ok {
			return "", fmt.Errorf("--config-file %s is not in a ConfigMap or Secret volume the container mounts", p)
		}
		f := filepath.Join(host, path.Base(p))
		if _, err := os.Stat(f); err != nil {
			return "", fmt.Errorf("--config-file %s: the mounted volume has no key %s", p, path.Base(p))
		}
		return f, nil
	}
	mapDir := func(p string) (string, error) {
		host, ok := dirs[p]
		if !ok {
			return "", fmt.Errorf("--config-dir %s is not a ConfigMap or Secret volume the container mounts", p)
		}
		return host, nil
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		flag, value, inline := strings.Cut(a, "=")
		mapper := map[string]func(string) (string, error){"--config-file": mapFile, "--config-dir": mapDir}[flag]
		switch {
		case mapper == nil:
			out = append(out, a)
		case inline:
			f, err := mapper(value)
			if err != nil {
				return nil, err
			}
			out = append(out, flag+"="+f)
		case i+1 < len(args):
			f, err := mapper(args[i+1])
			if err != nil {
				return nil, err
			}
			out = append(out, a, f)
			i++
		default:
			return nil, fmt.Errorf("argument %s has no value", a)
		}
	}
	return out, nil
}

// podIP is the address the test's pods have (the downward API's status.podIP).
const podIP = "127.0.0.1"

// resolveEnv turns the container's env into NAME=value as the kubelet would:
// secretKeyRef values from the cluster's Secrets, status.podIP from the
// downward API, and $(VAR) references to variables defined before.
func resolveEnv(t *testing.T, c *cluster, vars []corev1.EnvVar) []string {
	t.Helper()
	var out []string
	defined := map[string]string{}
	for _, e := range vars {
		var v string
		switch {
		case e.ValueFrom == nil:
			v = expandVars(e.Value, defined)
		case e.ValueFrom.SecretKeyRef != nil:
			ref := e.ValueFrom.SecretKeyRef
			b, ok := c.secretData(ref.Name)[ref.Key]
			if !ok {
				t.Fatalf("env %s: Secret %s has no key %s", e.Name, ref.Name, ref.Key)
			}
			v = string(b)
		case e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "status.podIP":
			v = podIP
		default:
			t.Fatalf("env %s: only secretKeyRef and status.podIP are resolved by this test", e.Name)
		}
		defined[e.Name] = v
		out = append(out, e.Name+"="+v)
	}
	return out
}

// expandVars expands $(NAME) references to defined variables as the kubelet
// does: $$ is a literal $, and a reference to an undefined name stays as it is.
func expandVars(s string, defined map[string]string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case strings.HasPrefix(s[i:], "$$"):
			b.WriteByte('$')
			i++
		case strings.HasPrefix(s[i:], "$("):
			end := strings.IndexByte(s[i:], ')')
			if end < 0 {
				b.WriteString(s[i:])
				return b.String()
			}
			if v, ok := defined[s[i+2:i+end]]; ok {
				b.WriteString(v)
			} else {
				b.WriteString(s[i : i+end+1])
			}
			i += end
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// file returns the bytes of a mounted file by its path in the container.
func (p *pod) file(t *testing.T, containerPath string) []byte {
	t.Helper()
	host, ok := p.mounted[containerPath]
	if !ok {
		t.Fatalf("nothing is mounted at %s", containerPath)
	}
	b, err := os.ReadFile(host)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// start runs glance-api and waits for the Deployment's startup probe (GET
// of its path on the API port, 200-399 as the kubelet counts it) to pass.
func (p *pod) start(t *testing.T, redact *proc.Redactor) {
	t.Helper()
	p.proc = proc.Start(t, proc.Options{Name: "glance-api", Argv: p.command, Env: p.env, Dir: p.dir,
		Log: filepath.Join(p.dir, "glance-api.log"), Redactor: redact})
	var err error
	p.started, err = p.proc.WaitFor(readyTimeout, "startup probe passing (GET "+p.probe+" 200-399)",
		proc.HTTPStatus(p.url+p.probe, func(code int) bool { return code >= 200 && code < 400 }))
	if err != nil {
		t.Fatal(err)
	}
}

// stop ends glance-api and its workers.
func (p *pod) stop(t *testing.T) time.Duration {
	t.Helper()
	start := time.Now()
	if err := p.proc.Stop(); err != nil {
		t.Fatal(err)
	}
	return time.Since(start)
}

var apiClient = &http.Client{Timeout: 2 * time.Minute}

// call does one API request and returns the status and body.
func (p *pod) call(t *testing.T, method, pth string, body []byte, header map[string]string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, p.url+pth, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := apiClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v; last lines of glance-api's log:\n%s", method, pth, err, p.proc.Tail(40))
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// getJSON GETs a path that must answer 200 with JSON.
func (p *pod) getJSON(t *testing.T, pth string, into any) {
	t.Helper()
	code, b := p.call(t, http.MethodGet, pth, nil, nil)
	if code != http.StatusOK {
		t.Fatalf("GET %s: HTTP %d: %s; last lines of glance-api's log:\n%s", pth, code, b, p.proc.Tail(40))
	}
	if err := json.Unmarshal(b, into); err != nil {
		t.Fatalf("GET %s: %v: %s", pth, err, b)
	}
}

// storeInfo is one entry of GET /v2/info/stores. Glance 25.1 sends
// "default": "true" (a string); later releases may send a boolean.
type storeInfo struct {
	ID      string `json:"id"`
	Default any    `json:"default,omitempty"`
}

func (s storeInfo) isDefault() bool { return s.Default == true || s.Default == "true" }

// stores returns store id -> flagged default.
func (p *pod) stores(t *testing.T) map[string]bool {
	t.Helper()
	var body struct {
		Stores []storeInfo `json:"stores"`
	}
	p.getJSON(t, "/v2/info/stores", &body)
	out := map[string]bool{}
	for _, s := range body.Stores {
		out[s.ID] = s.isDefault()
	}
	return out
}

type image struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	Stores string `json:"stores"`
	Size   *int64 `json:"size"`
}

// createImage makes an empty image record and returns its id.
func (p *pod) createImage(t *testing.T, name string) string {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"name": name, "disk_format": "raw", "container_format": "bare"})
	code, b := p.call(t, http.MethodPost, "/v2/images", body, map[string]string{"Content-Type": "application/json"})
	if code != http.StatusCreated {
		t.Fatalf("POST /v2/images: HTTP %d: %s", code, b)
	}
	var img image
	if err := json.Unmarshal(b, &img); err != nil || img.ID == "" {
		t.Fatalf("POST /v2/images: %v: %s", err, b)
	}
	return img.ID
}

// upload PUTs image data, into store when it is not "". The interoperable
// import flow needs a task owner, which an unauthenticated context lacks.
func (p *pod) upload(t *testing.T, id string, data []byte, store string) (int, []byte) {
	t.Helper()
	h := map[string]string{"Content-Type": "application/octet-stream"}
	if store != "" {
		h["X-Image-Meta-Store"] = store
	}
	return p.call(t, http.MethodPut, "/v2/images/"+id+"/file", data, h)
}

func (p *pod) image(t *testing.T, id string) image {
	t.Helper()
	var img image
	p.getJSON(t, "/v2/images/"+id, &img)
	return img
}

func (p *pod) download(t *testing.T, id string) []byte {
	t.Helper()
	code, b := p.call(t, http.MethodGet, "/v2/images/"+id+"/file", nil, nil)
	if code != http.StatusOK {
		t.Fatalf("GET /v2/images/%s/file: HTTP %d; last lines of glance-api's log:\n%s", id, code, p.proc.Tail(40))
	}
	return b
}
