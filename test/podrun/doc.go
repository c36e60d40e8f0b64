// Package podrun runs a rendered pod spec's containers as processes on this
// machine, as close to what the kubelet and a container runtime would do as
// a test can get without images:
//
//   - command and args exactly as rendered, $(VAR) references expanded with
//     the container's environment by the kubelet's rules ($$ escapes);
//   - env from value, secretKeyRef, configMapKeyRef (optional included),
//     the downward API (fieldRef, resourceFieldRef) and envFrom, read from
//     the ConfigMaps and Secrets given as Objects (for instance the objects
//     of simulate/chain's World);
//   - every volume (configMap and secret with items, defaultMode and item
//     modes, downwardAPI, projected, emptyDir) written under the pod's
//     directory the way the kubelet's atomic writer lays it out (..data
//     links, fsGroup ownership and modes) and bind-mounted at its mountPath
//     (subPath and subPathExpr too; API-data volumes read-only) in a mount
//     namespace of the container's own, over an empty tmpfs at /etc/glance
//     and /var/lib/glance (Options.HiddenPaths), so nothing of this
//     machine's Debian config or state is read and no directory made there
//     by anything else stands in the way; /etc/hosts and /etc/hostname are
//     the pod's;
//   - with Options.Root, another system's file system as the image: each
//     container sees it as its / through an overlay of its own (its writes
//     reach neither the image nor another container), with its own /proc,
//     this machine's /dev, and the volumes mounted in it;
//   - the container's user: runAsUser, runAsGroup, fsGroup and
//     supplementalGroups, runAsNonRoot refused for root, capabilities
//     (runtime default set, add, drop), allowPrivilegeEscalation: false as
//     no_new_privs, readOnlyRootFilesystem as every mount but /proc, /dev and
//     the volumes remounted read-only, workingDir;
//   - its own PID (the command is PID 1, and ignores a signal it has no
//     handler for; with shareProcessNamespace it is not PID 1, as under the
//     pod's pause process, and runs in the machine's PID namespace), UTS
//     (hostname = pod name) and IPC namespaces; the network is the
//     machine's, and the pod's IP (status.podIP) is an address of
//     127.0.0.0/8 claimed for it, so two pods can both listen on 9292;
//   - init containers in order, then the containers; startup, readiness and
//     liveness probes (httpGet, tcpSocket) tried against the pod's IP and
//     named ports; stop by the preStop sleep, SIGTERM, then SIGKILL after
//     the grace period.
//
// The one difference from the image is where programs are: Options.PATH
// (DebianPATH by default) replaces the image's PATH, since Debian's packages
// install glance-api, glance-manage and uwsgi in /usr/bin where the image
// has them in /var/lib/openstack/bin.
//
// Not done: exec and grpc probes, preStop handlers other than sleep, hostPath and persistent volumes, service
// account tokens (a spec using them is refused, not half run); emptyDir
// sizeLimit and medium Memory (the directory is on the test's disk); the
// kubelet's restarts (a container that exits or fails its liveness probe is
// reported, not restarted); service environment variables; seccomp and
// AppArmor profiles; Jobs' backoffLimit (Run runs a pod once).
//
// Tests run as root: the mount namespaces need it; without root the tests
// skip (fail under REQUIRE_SERVICES). A container is the test binary run
// again in new namespaces: this package's init sets the namespace up from a
// spec handed over on a pipe and executes the container's command, before
// anything else of the binary runs.
//
//	pod := podrun.MustPodOf(t, deployment)          // or a Job, from chain's World
//	objs := podrun.ObjectsOf(t, world.Objects())
//	r := podrun.StartReady(t, pod, objs, podrun.Options{})
//	resp, err := http.Get(r.URL("api") + "/healthcheck")
//	done := podrun.Run(t, podrun.MustPodOf(t, job), objs, podrun.Options{})
//	require.True(t, done.Succeeded(), done.Containers[0].Log)
package podrun
