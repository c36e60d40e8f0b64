package podrun

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/c5c3/glance-hooks/test/proc"
)

// launchEnv marks a process started to become a container: the test binary
// runs itself again in new mount, UTS, IPC and PID namespaces, and this
// package's init sets the container up and executes its command before
// anything else of the binary runs.
const launchEnv = "GLANCE_HOOKS_PODRUN_LAUNCH"

// File descriptors the launcher is given: the spec to read, and a pipe
// that closes on a successful exec or carries the reason it failed.
const (
	specFD   = 3
	statusFD = 4
)

// launchFailedCode is the exit status of a container whose process could
// not be started, as the kubelet reports a StartError.
const launchFailedCode = 128

func init() {
	if os.Getenv(launchEnv) == "" {
		return
	}
	// The mounts, credentials and exec must happen on one thread: no new
	// privileges, the capability bounding set and the parent-death signal
	// belong to the thread that executes the command.
	runtime.LockOSThread()
	err := launch()
	msg := "podrun: the container could not be started: " + err.Error() + "\n"
	_, _ = os.NewFile(statusFD, "status").WriteString(msg)
	_, _ = os.Stderr.WriteString(msg)
	os.Exit(launchFailedCode)
}

// launch sets the container up inside its new namespaces, in the order
// the runtime does, and executes its command.
func launch() error {
	s, err := readSpec()
	if err != nil {
		return err
	}
	if err := enterNamespaces(s.Hostname); err != nil {
		return err
	}
	if err := makeFileSystem(&s); err != nil {
		return err
	}
	if err := unix.Chdir(s.Dir); err != nil {
		return fmt.Errorf("working directory %s: %w", s.Dir, err)
	}
	if err := setCredentials(&s); err != nil {
		return err
	}
	bin, err := proc.LookPath(s.Argv[0], s.Env)
	if err != nil {
		return err
	}
	return syscall.Exec(bin, s.Argv, s.Env)
}

// makeFileSystem lays out what the container sees, in the runtime's order:
// its root (the image's, with Options.Root), the machine directories, the
// mount points, the tmpfs covers, the volumes and the working directory,
// then a read-only root where the container asks for one.
func makeFileSystem(s *launchSpec) error {
	// Open every source before anything is mounted: a volume mounted at
	// /tmp would hide sources that live in the test's /tmp directory.
	sources, err := openSources(s.Mounts)
	if err != nil {
		return err
	}
	if s.Root != "" {
		if err := enterRoot(s.Root, s.Scratch); err != nil {
			return err
		}
	}
	if err := makeMachineDirs(s.MachineDirs, s.Scratch); err != nil {
		return err
	}
	if err := makeMountPoints(s); err != nil {
		return err
	}
	for _, h := range s.Hide {
		if err := unix.Mount("tmpfs", h, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=0755,size=16m"); err != nil {
			return fmt.Errorf("covering %s with an empty tmpfs: %w", h, err)
		}
	}
	volumeTargets, err := mountVolumes(s.Mounts, sources)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		return fmt.Errorf("working directory %s: %w", s.Dir, err)
	}
	if s.ReadOnlyRoot {
		return readOnlyRoot(volumeTargets)
	}
	return nil
}

// readSpec reads the spec the runner wrote and leaves only the status pipe
// open, to close on exec.
func readSpec() (launchSpec, error) {
	var s launchSpec
	raw, err := io.ReadAll(os.NewFile(specFD, "spec"))
	if err != nil {
		return s, fmt.Errorf("reading the spec: %w", err)
	}
	_ = unix.Close(specFD)
	unix.CloseOnExec(statusFD)
	if err := json.Unmarshal(raw, &s); err != nil {
		return s, fmt.Errorf("reading the spec: %w", err)
	}
	return s, nil
}

// enterNamespaces makes the new namespaces the container's: nothing
// mounted in them reaches the machine's, and the hostname is the pod's.
func enterNamespaces(hostname string) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making / private: %w", err)
	}
	// The container's own /proc, of its PID namespace (the machine's with
	// shareProcessNamespace).
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mounting /proc: %w", err)
	}
	if err := unix.Sethostname([]byte(hostname)); err != nil {
		return fmt.Errorf("setting the hostname: %w", err)
	}
	return nil
}

// enterRoot makes an overlay of the image's file system, whose upper layer
// is in scratch, the container's root: its own /proc and this machine's
// /dev in it, and scratch at the same path, where the overlays of mount
// points are made next. The sources are open already: their names, by
// descriptor, resolve through the new /proc.
func enterRoot(image, scratch string) error {
	root := filepath.Join(scratch, "root")
	upper, work := filepath.Join(scratch, "root-upper"), filepath.Join(scratch, "root-work")
	for _, d := range []string{root, upper, work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	if err := mountOverlay(image, upper, work, root); err != nil {
		return fmt.Errorf("overlaying the image %s: %w", image, err)
	}
	if err := unix.Mount("proc", filepath.Join(root, "proc"), "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mounting the image's /proc: %w", err)
	}
	if err := unix.Mount("/dev", filepath.Join(root, "dev"), "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("mounting the image's /dev: %w", err)
	}
	inRoot := filepath.Join(root, scratch)
	if err := os.MkdirAll(inRoot, 0o755); err != nil {
		return err
	}
	if err := unix.Mount(scratch, inRoot, "", unix.MS_BIND, ""); err != nil {
		return fmt.Errorf("mounting the scratch directory into the image: %w", err)
	}
	if err := unix.Chroot(root); err != nil {
		return fmt.Errorf("entering the image %s: %w", image, err)
	}
	return unix.Chdir("/")
}

// openSources opens each mount's source and names it by its descriptor,
// which later mounts cannot hide.
func openSources(mounts []mountSpec) ([]string, error) {
	sources := make([]string, len(mounts))
	for i, m := range mounts {
		fd, err := unix.Open(m.Source, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err != nil {
			return nil, fmt.Errorf("volume source for %s: %w", m.Target, err)
		}
		sources[i] = "/proc/self/fd/" + strconv.Itoa(fd)
	}
	return sources, nil
}

// mountVolumes bind-mounts each source at its target, read-only where the
// mount says so, and returns the targets.
func mountVolumes(mounts []mountSpec, sources []string) ([]string, error) {
	var targets []string
	for i, m := range mounts {
		if err := ensureTarget(m.Target, m.File); err != nil {
			return nil, err
		}
		if err := unix.Mount(sources[i], m.Target, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return nil, fmt.Errorf("mounting %s: %w", m.Target, err)
		}
		if m.ReadOnly {
			if err := remountReadOnly(m.Target, nil); err != nil {
				return nil, err
			}
		}
		targets = append(targets, m.Target)
	}
	return targets, nil
}

// makeMountPoints makes every directory the container needs that this
// machine lacks (tmpfs covers, mount targets, the working directory)
// without touching the machine's file system: the nearest existing parent
// gets an overlay whose upper layer is in the test's scratch directory, and
// the directories are made in it. A path under a hidden path needs nothing:
// the tmpfs covering it is the container's own.
func makeMountPoints(s *launchSpec) error {
	wanted := append(append([]string{}, s.Hide...), s.Dir)
	for _, m := range s.Mounts {
		wanted = append(wanted, m.Target)
	}
	var parents []string
	for _, p := range wanted {
		if _, err := os.Lstat(p); err == nil || underAny(p, s.Hide, false) {
			continue
		}
		a := nearestExisting(p)
		if a == "/" {
			return fmt.Errorf("%s: no parent of it exists on this machine but /, which cannot be overlaid", p)
		}
		parents = append(parents, a)
	}
	sort.Strings(parents)
	if err := overlayParents(parents, filepath.Join(s.Scratch, "overlay-")); err != nil {
		return err
	}
	for _, h := range s.Hide {
		if err := os.MkdirAll(h, 0o755); err != nil {
			return fmt.Errorf("%s: %w", h, err)
		}
	}
	return nil
}

// overlayParents overlays each of dirs (and none below another one) with
// an upper layer under scratch<i>, so what is made in them stays in this
// mount namespace and the test's directory.
func overlayParents(dirs []string, scratch string) error {
	sort.Strings(dirs)
	var overlays []string
	for _, a := range dirs {
		if len(overlays) > 0 && (overlays[len(overlays)-1] == a || underAny(a, overlays, false)) {
			continue
		}
		overlays = append(overlays, a)
	}
	for i, a := range overlays {
		if sub, err := submounts(a); err != nil {
			return err
		} else if len(sub) > 0 {
			return fmt.Errorf("%s would need an overlay, but has mounts below it (%s)", a, strings.Join(sub, ", "))
		}
		upper := scratch + strconv.Itoa(i) + "/upper"
		work := scratch + strconv.Itoa(i) + "/work"
		if err := os.MkdirAll(upper, 0o755); err != nil {
			return err
		}
		if err := os.MkdirAll(work, 0o755); err != nil {
			return err
		}
		if err := mountOverlay(a, upper, work, a); err != nil {
			return fmt.Errorf("overlaying %s to make mount points in it: %w", a, err)
		}
	}
	return nil
}

// mountOverlay mounts at target an overlay of lower with the upper layer
// upper and overlayfs's work directory work. overlayfs takes its layers in
// one option string, where a ',' ends an option and a ':' separates lower
// layers, and a test's directory is named after the test, commas, colons
// and all: each layer is named by a descriptor opened here instead, which
// the kernel follows to the directory.
func mountOverlay(lower, upper, work, target string) error {
	var layers [3]string
	for i, dir := range []string{lower, upper, work} {
		fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("opening the overlay layer %s: %w", dir, err)
		}
		defer unix.Close(fd)
		layers[i] = "/proc/self/fd/" + strconv.Itoa(fd)
	}
	return unix.Mount("overlay", target, "overlay", 0, "lowerdir="+layers[0]+",upperdir="+layers[1]+",workdir="+layers[2])
}

// makeMachineDirs makes each of dirs that this machine lacks, root's and
// 0700, in overlays of their nearest existing parents: the machine as a
// test wants the container to find it, in the container's namespace only.
func makeMachineDirs(dirs []string, scratch string) error {
	var parents, missing []string
	for _, d := range dirs {
		if _, err := os.Lstat(d); err == nil {
			continue
		}
		a := nearestExisting(d)
		if a == "/" {
			return fmt.Errorf("%s: no parent of it exists on this machine but /, which cannot be overlaid", d)
		}
		parents, missing = append(parents, a), append(missing, d)
	}
	if err := overlayParents(parents, filepath.Join(scratch, "machine-")); err != nil {
		return err
	}
	for _, d := range missing {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return fmt.Errorf("machine directory %s: %w", d, err)
		}
		if err := os.Chown(d, 0, 0); err != nil {
			return fmt.Errorf("machine directory %s: %w", d, err)
		}
	}
	return nil
}

// ensureTarget makes a mount target of the right kind (after the tmpfs
// covers and overlays, so only in those).
func ensureTarget(target string, file bool) error {
	st, err := os.Stat(target)
	switch {
	case err == nil && st.IsDir() == file:
		kind := "a directory"
		if !file {
			kind = "not a directory"
		}
		return fmt.Errorf("mount target %s is %s", target, kind)
	case err == nil:
		return nil
	case !os.IsNotExist(err):
		return err
	}
	if !file {
		return os.MkdirAll(target, 0o755)
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	return f.Close()
}

func nearestExisting(p string) string {
	for p != "/" {
		p = filepath.Dir(p)
		if _, err := os.Lstat(p); err == nil {
			return p
		}
	}
	return "/"
}

// underAny tells whether p is below one of roots (or equal, if orEqual).
func underAny(p string, roots []string, orEqual bool) bool {
	for _, r := range roots {
		if (orEqual && p == r) || strings.HasPrefix(p, strings.TrimSuffix(r, "/")+"/") {
			return true
		}
	}
	return false
}

type mountPoint struct {
	path  string
	flags uintptr
}

// mountPoints reads this namespace's mount table.
func mountPoints() ([]mountPoint, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []mountPoint
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 {
			continue
		}
		out = append(out, mountPoint{path: unescapeMountPath(fields[4]), flags: mountFlags(fields[5])})
	}
	return out, sc.Err()
}

// unescapeMountPath undoes mountinfo's octal escapes (\040 for a space).
func unescapeMountPath(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// mountFlags turns a mount's per-mount options into the flags a bind
// remount must repeat.
func mountFlags(opts string) uintptr {
	var f uintptr
	for _, o := range strings.Split(opts, ",") {
		switch o {
		case "nosuid":
			f |= unix.MS_NOSUID
		case "nodev":
			f |= unix.MS_NODEV
		case "noexec":
			f |= unix.MS_NOEXEC
		case "noatime":
			f |= unix.MS_NOATIME
		case "nodiratime":
			f |= unix.MS_NODIRATIME
		case "relatime":
			f |= unix.MS_RELATIME
		}
	}
	return f
}

func submounts(dir string) ([]string, error) {
	mps, err := mountPoints()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, m := range mps {
		if underAny(m.path, []string{dir}, false) {
			out = append(out, m.path)
		}
	}
	return out, nil
}

// remountReadOnly makes one mount read-only, keeping its other flags.
func remountReadOnly(target string, known []mountPoint) error {
	flags := uintptr(0)
	if known == nil {
		var err error
		if known, err = mountPoints(); err != nil {
			return err
		}
	}
	for _, m := range known {
		if m.path == target {
			flags = m.flags
		}
	}
	if err := unix.Mount("", target, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY|flags, ""); err != nil {
		return fmt.Errorf("making %s read-only: %w", target, err)
	}
	return nil
}

// readOnlyRoot approximates readOnlyRootFilesystem: every mount of the
// namespace is made read-only except /proc, /dev (and what is below them)
// and the container's volumes, which keep their own mode.
func readOnlyRoot(volumeTargets []string) error {
	mps, err := mountPoints()
	if err != nil {
		return err
	}
	done := map[string]bool{}
	for _, m := range mps {
		if done[m.path] || underAny(m.path, []string{"/proc", "/dev"}, true) || underAny(m.path, volumeTargets, true) {
			continue
		}
		done[m.path] = true
		if err := remountReadOnly(m.path, mps); err != nil {
			// A mount that is read-only already (or that this namespace
			// may not change) stays as it is.
			var errno syscall.Errno
			if errors.As(err, &errno) && (errno == unix.EPERM || errno == unix.EACCES) {
				continue
			}
			return err
		}
	}
	return nil
}

// setCredentials drops capabilities outside the bounding set (while still
// root), then switches groups and user, and sets no-new-privileges. The
// parent-death signal, cleared by a change of user, is set again.
func setCredentials(s *launchSpec) error {
	keep := map[int]bool{}
	for _, c := range s.Capabilities {
		keep[c] = true
	}
	last := lastCapability()
	for c := 0; c <= last; c++ {
		if !keep[c] {
			if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil {
				return fmt.Errorf("dropping capability %d: %w", c, err)
			}
		}
	}
	groups := make([]int, len(s.Groups))
	for i, g := range s.Groups {
		groups[i] = int(g)
	}
	if err := syscall.Setgroups(groups); err != nil {
		return fmt.Errorf("setgroups %v: %w", s.Groups, err)
	}
	if err := syscall.Setresgid(int(s.GID), int(s.GID), int(s.GID)); err != nil {
		return fmt.Errorf("setresgid %d: %w", s.GID, err)
	}
	if err := syscall.Setresuid(int(s.UID), int(s.UID), int(s.UID)); err != nil {
		return fmt.Errorf("setresuid %d: %w", s.UID, err)
	}
	if s.NoNewPrivs {
		if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
			return fmt.Errorf("no_new_privs: %w", err)
		}
	}
	return unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(unix.SIGKILL), 0, 0, 0)
}

func lastCapability() int {
	b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap")
	if err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			return n
		}
	}
	return len(capabilityNames) - 1
}
