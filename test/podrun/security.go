package podrun

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// identity is who a container's process runs as.
type identity struct {
	UID, GID uint32
	Groups   []uint32
	Home     string
}

// containerIdentity applies the pod's and the container's securityContext
// as the kubelet and runtime do: runAsUser and runAsGroup (the container's
// win), else the image's user and its primary group from /etc/passwd (this
// machine's, standing for the image's); fsGroup and supplementalGroups as
// supplementary groups; runAsNonRoot refuses uid 0.
func containerIdentity(pod Pod, ctr *corev1.Container, o Options) (identity, error) {
	psc := pod.Spec.SecurityContext
	if psc == nil {
		psc = &corev1.PodSecurityContext{}
	}
	csc := ctr.SecurityContext
	if csc == nil {
		csc = &corev1.SecurityContext{}
	}
	var uid int64
	switch {
	case csc.RunAsUser != nil:
		uid = *csc.RunAsUser
	case psc.RunAsUser != nil:
		uid = *psc.RunAsUser
	case o.ImageUser != nil:
		uid = *o.ImageUser
	}
	nonRoot := csc.RunAsNonRoot
	if nonRoot == nil {
		nonRoot = psc.RunAsNonRoot
	}
	if isTrue(nonRoot) && uid == 0 {
		return identity{}, fmt.Errorf("container %s has runAsNonRoot and would run as root (uid 0)", ctr.Name)
	}
	pw, known := lookupPasswd(uid)
	id := identity{UID: uint32(uid), Home: o.Home}
	if known {
		id.GID, id.Home = pw.gid, pw.home
	}
	switch {
	case csc.RunAsGroup != nil:
		id.GID = uint32(*csc.RunAsGroup)
	case psc.RunAsGroup != nil:
		id.GID = uint32(*psc.RunAsGroup)
	}
	seen := map[uint32]bool{}
	add := func(g uint32) {
		if !seen[g] {
			seen[g] = true
			id.Groups = append(id.Groups, g)
		}
	}
	add(id.GID)
	if psc.FSGroup != nil {
		add(uint32(*psc.FSGroup))
	}
	for _, g := range psc.SupplementalGroups {
		add(uint32(g))
	}
	return id, nil
}

type passwdEntry struct {
	gid  uint32
	home string
}

func lookupPasswd(uid int64) (passwdEntry, bool) {
	f, err := os.Open("/etc/passwd")
	if err != nil {
		return passwdEntry{}, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), ":")
		if len(fields) < 7 || fields[2] != strconv.FormatInt(uid, 10) {
			continue
		}
		gid, err := strconv.ParseUint(fields[3], 10, 32)
		if err != nil {
			return passwdEntry{}, false
		}
		return passwdEntry{gid: uint32(gid), home: fields[5]}, true
	}
	return passwdEntry{}, false
}

// capabilityNames are Linux capabilities by the names the API uses, in
// kernel order (the index is the capability's number).
var capabilityNames = []string{
	"CHOWN", "DAC_OVERRIDE", "DAC_READ_SEARCH", "FOWNER", "FSETID", "KILL", "SETGID", "SETUID",
	"SETPCAP", "LINUX_IMMUTABLE", "NET_BIND_SERVICE", "NET_BROADCAST", "NET_ADMIN", "NET_RAW",
	"IPC_LOCK", "IPC_OWNER", "SYS_MODULE", "SYS_RAWIO", "SYS_CHROOT", "SYS_PTRACE", "SYS_PACCT",
	"SYS_ADMIN", "SYS_BOOT", "SYS_NICE", "SYS_RESOURCE", "SYS_TIME", "SYS_TTY_CONFIG", "MKNOD",
	"LEASE", "AUDIT_WRITE", "AUDIT_CONTROL", "SETFCAP", "MAC_OVERRIDE", "MAC_ADMIN", "SYSLOG",
	"WAKE_ALARM", "BLOCK_SUSPEND", "AUDIT_READ", "PERFMON", "BPF", "CHECKPOINT_RESTORE",
}

// runtimeDefaultCapabilities are what containerd and CRI-O give a container
// that asks for nothing.
var runtimeDefaultCapabilities = []string{
	"CHOWN", "DAC_OVERRIDE", "FSETID", "FOWNER", "MKNOD", "NET_RAW", "SETGID", "SETUID",
	"SETFCAP", "SETPCAP", "NET_BIND_SERVICE", "SYS_CHROOT", "KILL", "AUDIT_WRITE",
}

// capabilities is the bounding set of a container's process: the runtime's
// default set with the container's add and drop ("ALL" drops every one),
// or every capability when privileged. A process that is not root keeps
// none of them across exec; for root the set is what it gets.
func capabilities(ctr *corev1.Container) ([]int, error) {
	sc := ctr.SecurityContext
	if sc != nil && isTrue(sc.Privileged) {
		all := make([]int, len(capabilityNames))
		for i := range all {
			all[i] = i
		}
		return all, nil
	}
	keep := map[string]bool{}
	for _, c := range runtimeDefaultCapabilities {
		keep[c] = true
	}
	if sc != nil && sc.Capabilities != nil {
		for _, c := range sc.Capabilities.Drop {
			name := strings.TrimPrefix(strings.ToUpper(string(c)), "CAP_")
			if name == "ALL" {
				keep = map[string]bool{}
				continue
			}
			delete(keep, name)
		}
		for _, c := range sc.Capabilities.Add {
			name := strings.TrimPrefix(strings.ToUpper(string(c)), "CAP_")
			if name == "ALL" {
				for _, n := range capabilityNames {
					keep[n] = true
				}
				continue
			}
			keep[name] = true
		}
	}
	var out []int
	for i, n := range capabilityNames {
		if keep[n] {
			out = append(out, i)
			delete(keep, n)
		}
	}
	for n := range keep {
		return nil, fmt.Errorf("container %s: unknown capability %q", ctr.Name, n)
	}
	return out, nil
}
