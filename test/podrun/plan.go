package podrun

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// launchSpec is everything the launcher does inside the container's
// namespaces before it executes the container's command.
type launchSpec struct {
	Argv     []string
	Env      []string
	Dir      string
	Hostname string
	// Hide are paths covered with an empty tmpfs.
	Hide []string
	// MachineDirs are made, root's and 0700, in overlays private to the
	// container's namespace, before anything else (Options.MachineDirs).
	MachineDirs []string
	// Mounts are bind mounts, parents before children.
	Mounts []mountSpec
	// Scratch is a directory of the test for overlay layers: a mount
	// point missing on this machine is made in an overlay of its nearest
	// existing parent, never on the machine's own file system.
	Scratch string
	// Root is the image's file system (Options.Root); empty: the
	// machine's.
	Root         string
	ReadOnlyRoot bool
	UID, GID     uint32
	Groups       []uint32
	NoNewPrivs   bool
	// Capabilities is the bounding set, by number.
	Capabilities []int
}

type mountSpec struct {
	Source, Target string
	ReadOnly, File bool
}

// podInputs are what every container of a pod is planned from: the pod,
// the objects and status its env reads, its volumes by name, the kubelet's
// own files for it (by target) and the runner's options.
type podInputs struct {
	pod   Pod
	objs  *Objects
	st    Status
	vols  map[string]*volume
	files map[string]string
	opts  Options
}

// planContainer turns a container of the pod into what the launcher does:
// the command line and environment (Options.PATH and the image's env, then
// the container's resolved env), the user, and the mounts of its volumes.
// scratch is the container's directory for overlay layers.
func planContainer(in podInputs, ctr *corev1.Container, scratch string) (*launchSpec, error) {
	if err := checkProbes(ctr); err != nil {
		return nil, err
	}
	vars, err := ResolveEnv(in.pod, ctr, in.objs, in.st)
	if err != nil {
		return nil, err
	}
	id, err := containerIdentity(in.pod, ctr, in.opts)
	if err != nil {
		return nil, err
	}
	caps, err := capabilities(ctr)
	if err != nil {
		return nil, err
	}
	argv, err := commandLine(ctr, vars, in.opts.Entrypoint)
	if err != nil {
		return nil, err
	}
	mounts, err := planMounts(ctr, in.vols, vars)
	if err != nil {
		return nil, err
	}
	dir := ctr.WorkingDir
	if dir == "" {
		dir = in.opts.WorkingDir
	}
	sc := ctr.SecurityContext
	spec := &launchSpec{
		Argv: argv, Env: environ(in.opts, in.pod.Name, id.Home, vars), Dir: dir, Hostname: in.pod.Name,
		Hide: in.opts.HiddenPaths, MachineDirs: in.opts.MachineDirs, Mounts: withPodFiles(mounts, in.files), Scratch: scratch, Root: in.opts.Root,
		UID: id.UID, GID: id.GID, Groups: id.Groups, Capabilities: caps,
		ReadOnlyRoot: sc != nil && isTrue(sc.ReadOnlyRootFilesystem),
		NoNewPrivs:   sc != nil && sc.AllowPrivilegeEscalation != nil && !*sc.AllowPrivilegeEscalation,
	}
	return spec, nil
}

// checkProbes refuses a probe this runner cannot run (exec, grpc).
func checkProbes(ctr *corev1.Container) error {
	for _, p := range []*corev1.Probe{ctr.StartupProbe, ctr.ReadinessProbe, ctr.LivenessProbe} {
		if p != nil && p.HTTPGet == nil && p.TCPSocket == nil {
			return fmt.Errorf("container %s: only httpGet and tcpSocket probes can be run here", ctr.Name)
		}
	}
	return nil
}

// environ is what the runtime starts from (Options.PATH, HOSTNAME, HOME of
// the user, the image's env with PATH replaced), the container's env
// overriding any of them.
func environ(o Options, hostname, home string, vars []EnvVar) []string {
	var e env
	e.Set("PATH", o.PATH)
	e.Set("HOSTNAME", hostname)
	e.Set("HOME", home)
	for _, kv := range o.ImageEnv {
		k, v, _ := strings.Cut(kv, "=")
		if k != "PATH" {
			e.Set(k, v)
		}
	}
	for _, v := range vars {
		e.Set(v.Name, v.Value)
	}
	out := make([]string, len(e.vars))
	for i, v := range e.vars {
		out[i] = v.Name + "=" + v.Value
	}
	return out
}

// commandLine is the container's command and args expanded, after the
// image's entrypoint when the container names no command.
func commandLine(ctr *corev1.Container, vars []EnvVar, entrypoint []string) ([]string, error) {
	argv := ExpandCommand(ctr, vars)
	if len(ctr.Command) == 0 {
		if len(entrypoint) == 0 {
			return nil, fmt.Errorf("container %s has no command and the image's entrypoint is not known here (Options.Entrypoint)", ctr.Name)
		}
		argv = append(append([]string{}, entrypoint...), argv...)
	}
	if len(argv) == 0 {
		return nil, fmt.Errorf("container %s: empty command line", ctr.Name)
	}
	return argv, nil
}

// withPodFiles puts the kubelet's own files (/etc/hosts, /etc/hostname)
// before the volumes, unless a volume is mounted there.
func withPodFiles(mounts []mountSpec, podFiles map[string]string) []mountSpec {
	taken := map[string]bool{}
	for _, m := range mounts {
		taken[m.Target] = true
	}
	var files []mountSpec
	for _, target := range sortedKeys(podFiles) {
		if !taken[target] {
			files = append(files, mountSpec{Source: podFiles[target], Target: target, ReadOnly: false, File: true})
		}
	}
	return append(files, mounts...)
}

// planMounts maps each volumeMount to a bind mount: the volume's directory,
// or with subPath (subPathExpr expanded with the container's env) the path
// inside it, created as a directory when missing, as the kubelet does.
// Mounts are ordered parents first.
func planMounts(ctr *corev1.Container, vols map[string]*volume, vars []EnvVar) ([]mountSpec, error) {
	var e env
	for _, v := range vars {
		e.Set(v.Name, v.Value)
	}
	var out []mountSpec
	seen := map[string]bool{}
	for _, vm := range ctr.VolumeMounts {
		vol, ok := vols[vm.Name]
		if !ok {
			return nil, fmt.Errorf("container %s: volumeMount %s names no volume of the pod", ctr.Name, vm.Name)
		}
		if !path.IsAbs(vm.MountPath) {
			return nil, fmt.Errorf("container %s: mountPath %q is not absolute", ctr.Name, vm.MountPath)
		}
		target := path.Clean(vm.MountPath)
		if seen[target] {
			return nil, fmt.Errorf("container %s: two volumes are mounted at %s", ctr.Name, target)
		}
		seen[target] = true
		sub := vm.SubPath
		if vm.SubPathExpr != "" {
			sub = Expand(vm.SubPathExpr, e.Get)
			if strings.Contains(sub, "$(") {
				return nil, fmt.Errorf("container %s: subPathExpr %q refers to a variable the container does not have", ctr.Name, vm.SubPathExpr)
			}
		}
		source, isFile, err := subPathSource(vol.path, sub)
		if err != nil {
			return nil, fmt.Errorf("container %s: volumeMount %s: %w", ctr.Name, vm.Name, err)
		}
		out = append(out, mountSpec{Source: source, Target: target, ReadOnly: vm.ReadOnly || vol.apiData, File: isFile})
	}
	sort.SliceStable(out, func(i, j int) bool { return depth(out[i].Target) < depth(out[j].Target) })
	return out, nil
}

func depth(p string) int { return strings.Count(path.Clean(p), "/") }

// subPathSource resolves a subPath inside a volume's directory, following
// links (a ConfigMap key is a link into ..data) but never out of it.
func subPathSource(root, sub string) (string, bool, error) {
	if sub == "" {
		return root, false, nil
	}
	if path.IsAbs(sub) {
		return "", false, fmt.Errorf("subPath %q must be relative", sub)
	}
	for _, el := range strings.Split(sub, "/") {
		if el == ".." {
			return "", false, fmt.Errorf("subPath %q must not contain '..'", sub)
		}
	}
	p := filepath.Join(root, filepath.FromSlash(sub))
	if _, err := os.Lstat(p); os.IsNotExist(err) {
		if err := os.MkdirAll(p, 0o750); err != nil {
			return "", false, err
		}
	}
	resolved, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", false, err
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", false, err
	}
	if resolved != realRoot && !strings.HasPrefix(resolved, realRoot+string(filepath.Separator)) {
		return "", false, fmt.Errorf("subPath %q leads out of the volume", sub)
	}
	st, err := os.Stat(resolved)
	if err != nil {
		return "", false, err
	}
	return resolved, !st.IsDir(), nil
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
