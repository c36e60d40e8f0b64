package podrun

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// The kubelet's modes: API-data volumes (ConfigMap, Secret, downward API,
// projected) default to 0644 per file; an emptyDir is 0777.
const (
	defaultFileMode = 0o644
	emptyDirMode    = 0o777
	payloadDirMode  = 0o755
)

// volume is a pod volume laid out on this machine.
type volume struct {
	name string
	// path is the directory standing for the volume.
	path string
	// apiData volumes (ConfigMap, Secret, downward API, projected) are
	// mounted read-only whatever the volumeMount says, as the kubelet does.
	apiData bool
}

// file is one file of an API-data volume.
type file struct {
	data []byte
	mode os.FileMode
}

// materialize writes every volume of the pod under dir and returns them by
// name, and the Secret values they hold (for masking logs).
func materialize(pod Pod, objs *Objects, st Status, dir string) (map[string]*volume, []string, error) {
	out := map[string]*volume{}
	var secrets []string
	stamp := time.Now().UTC().Format("..2006_01_02_15_04_05.000000000")
	for _, v := range pod.Spec.Volumes {
		vol := &volume{name: v.Name, path: filepath.Join(dir, v.Name)}
		if _, dup := out[v.Name]; dup {
			return nil, nil, fmt.Errorf("volume %s is declared twice", v.Name)
		}
		out[v.Name] = vol
		var payload map[string]file
		var defaultMode *int32
		var err error
		switch {
		case v.EmptyDir != nil:
			// Medium Memory and sizeLimit are not applied: the directory
			// is on the test's disk (see the package documentation).
			if err := os.MkdirAll(vol.path, emptyDirMode); err != nil {
				return nil, nil, err
			}
			if err := os.Chmod(vol.path, emptyDirMode); err != nil {
				return nil, nil, err
			}
			if err := applyFSGroup(vol.path, pod.Spec.SecurityContext, false); err != nil {
				return nil, nil, fmt.Errorf("volume %s: %w", v.Name, err)
			}
			continue
		case v.ConfigMap != nil:
			defaultMode = v.ConfigMap.DefaultMode
			payload, err = keysPayload(objectRef{"ConfigMap", pod.Namespace, v.ConfigMap.Name, v.ConfigMap.Optional}, v.ConfigMap.Items, objs)
		case v.Secret != nil:
			defaultMode = v.Secret.DefaultMode
			payload, err = keysPayload(objectRef{"Secret", pod.Namespace, v.Secret.SecretName, v.Secret.Optional}, v.Secret.Items, objs)
			secrets = append(secrets, payloadValues(payload)...)
		case v.DownwardAPI != nil:
			defaultMode = v.DownwardAPI.DefaultMode
			payload, err = downwardPayload(pod, st, v.DownwardAPI.Items)
		case v.Projected != nil:
			defaultMode = v.Projected.DefaultMode
			payload, secrets, err = projectedPayload(pod, st, objs, v.Projected.Sources, secrets)
		default:
			return nil, nil, fmt.Errorf("volume %s: only emptyDir, configMap, secret, downwardAPI and projected volumes can be run here", v.Name)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("volume %s: %w", v.Name, err)
		}
		vol.apiData = true
		if err := writeAtomic(vol.path, stamp, payload, defaultMode); err != nil {
			return nil, nil, fmt.Errorf("volume %s: %w", v.Name, err)
		}
		if err := applyFSGroup(vol.path, pod.Spec.SecurityContext, true); err != nil {
			return nil, nil, fmt.Errorf("volume %s: %w", v.Name, err)
		}
	}
	return out, secrets, nil
}

func payloadValues(p map[string]file) []string {
	var out []string
	for _, f := range p {
		out = append(out, string(f.data))
	}
	return out
}

// modeFlag: the zero mode means "the volume's default".
func itemMode(m *int32) os.FileMode {
	if m == nil {
		return 0
	}
	return os.FileMode(*m)
}

// keysPayload is a ConfigMap's or Secret's files: every key, or the items
// (key -> path, mode). A missing object or item key is an error unless the
// source is optional.
func keysPayload(ref objectRef, items []corev1.KeyToPath, objs *Objects) (map[string]file, error) {
	data, found, err := ref.read(objs)
	if err != nil {
		return nil, err
	}
	out := map[string]file{}
	if !found {
		return out, nil
	}
	if len(items) == 0 {
		for k, v := range data {
			out[k] = file{data: v}
		}
		return out, nil
	}
	for _, it := range items {
		v, ok, err := ref.key(data, it.Key)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		out[it.Path] = file{data: v, mode: itemMode(it.Mode)}
	}
	return out, nil
}

func downwardPayload(pod Pod, st Status, items []corev1.DownwardAPIVolumeFile) (map[string]file, error) {
	out := map[string]file{}
	for _, it := range items {
		var val string
		var err error
		switch {
		case it.FieldRef != nil:
			val, err = fieldValue(pod, st, it.FieldRef.FieldPath, true)
		case it.ResourceFieldRef != nil:
			if it.ResourceFieldRef.ContainerName == "" {
				return nil, fmt.Errorf("item %s: resourceFieldRef needs containerName in a volume", it.Path)
			}
			val, err = resourceValue(pod, "", it.ResourceFieldRef)
		default:
			return nil, fmt.Errorf("item %s: neither fieldRef nor resourceFieldRef", it.Path)
		}
		if err != nil {
			return nil, fmt.Errorf("item %s: %w", it.Path, err)
		}
		out[it.Path] = file{data: []byte(val), mode: itemMode(it.Mode)}
	}
	return out, nil
}

func projectedPayload(pod Pod, st Status, objs *Objects, sources []corev1.VolumeProjection, secrets []string) (map[string]file, []string, error) {
	out := map[string]file{}
	for i, src := range sources {
		var part map[string]file
		var err error
		switch {
		case src.ConfigMap != nil:
			part, err = keysPayload(objectRef{"ConfigMap", pod.Namespace, src.ConfigMap.Name, src.ConfigMap.Optional}, src.ConfigMap.Items, objs)
		case src.Secret != nil:
			part, err = keysPayload(objectRef{"Secret", pod.Namespace, src.Secret.Name, src.Secret.Optional}, src.Secret.Items, objs)
			secrets = append(secrets, payloadValues(part)...)
		case src.DownwardAPI != nil:
			part, err = downwardPayload(pod, st, src.DownwardAPI.Items)
		default:
			return nil, nil, fmt.Errorf("projected source %d: only configMap, secret and downwardAPI sources can be run here", i)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("projected source %d: %w", i, err)
		}
		for p, f := range part {
			if _, dup := out[p]; dup {
				return nil, nil, fmt.Errorf("projected source %d: path %s is already projected", i, p)
			}
			out[p] = f
		}
	}
	return out, secrets, nil
}

// writeAtomic lays files out as the kubelet's atomic writer does: the files
// in a timestamped directory, a ..data link to it, and a link per top-level
// name into ..data, so a reader sees the same names, links and modes.
func writeAtomic(dir, stamp string, payload map[string]file, defaultMode *int32) error {
	mode := os.FileMode(defaultFileMode)
	if defaultMode != nil {
		mode = os.FileMode(*defaultMode)
	}
	if err := os.MkdirAll(dir, payloadDirMode); err != nil {
		return err
	}
	data := filepath.Join(dir, stamp)
	if err := os.Mkdir(data, payloadDirMode); err != nil {
		return err
	}
	paths := make([]string, 0, len(payload))
	for p := range payload {
		if err := validPayloadPath(p); err != nil {
			return err
		}
		paths = append(paths, p)
	}
	sort.Strings(paths)
	top := map[string]bool{}
	for _, p := range paths {
		f := payload[p]
		m := mode
		if f.mode != 0 {
			m = f.mode
		}
		target := filepath.Join(data, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(target), payloadDirMode); err != nil {
			return err
		}
		if err := os.WriteFile(target, f.data, m.Perm()); err != nil {
			return err
		}
		// WriteFile's mode passes through the umask; the kubelet's does not.
		if err := os.Chmod(target, m.Perm()); err != nil {
			return err
		}
		top[strings.SplitN(p, "/", 2)[0]] = true
	}
	if err := os.Symlink(stamp, filepath.Join(dir, "..data")); err != nil {
		return err
	}
	for name := range top {
		if err := os.Symlink(path.Join("..data", name), filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	return nil
}

// validPayloadPath refuses what the API server refuses in an item path.
func validPayloadPath(p string) error {
	if p == "" || path.IsAbs(p) {
		return fmt.Errorf("item path %q must be relative and not empty", p)
	}
	for _, el := range strings.Split(p, "/") {
		if el == ".." {
			return fmt.Errorf("item path %q must not contain '..'", p)
		}
	}
	if strings.HasPrefix(p, "..") {
		return fmt.Errorf("item path %q must not start with '..'", p)
	}
	return nil
}

// applyFSGroup does what the kubelet does to a volume when the pod sets
// fsGroup: every file and directory gets the group, files become group
// readable (and writable when the volume is writable), directories group
// searchable and set-group-ID. Links are given the group only.
func applyFSGroup(dir string, sc *corev1.PodSecurityContext, readOnly bool) error {
	if sc == nil || sc.FSGroup == nil {
		return nil
	}
	gid := int(*sc.FSGroup)
	mask := os.FileMode(0o660)
	if readOnly {
		mask = 0o440
	}
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := os.Lchown(p, -1, gid); err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		m := info.Mode() | mask
		if d.IsDir() {
			m |= os.ModeSetgid | 0o110
		}
		return os.Chmod(p, m)
	})
}
