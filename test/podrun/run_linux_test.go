package podrun

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/c5c3/glance-hooks/test/proc"
)

// shPod is a pod of one container running a shell script.
func shPod(name, script string) Pod {
	return Pod{Name: name, Namespace: "openstack", UID: "u-" + name, Labels: map[string]string{"app": name},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Command: []string{"sh", "-c", script}}}}}
}

func secretOf(name string, data map[string]string) *corev1.Secret {
	return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "openstack"}, StringData: data}
}

func configMapOf(name string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "openstack"}, Data: data}
}

// runOK runs a pod to completion and returns its one container's log.
func runOK(t *testing.T, pod Pod, objs *Objects, o Options) string {
	t.Helper()
	done := Run(t, pod, objs, o)
	require.True(t, done.Succeeded(), "pod %s: %+v", pod.Name, done.Containers)
	return done.Containers[0].Log
}

func TestCommandEnvAndDownwardAPIAsRendered(t *testing.T) {
	pod := shPod("env", `printf '%s|' "$0" "$@"; echo; echo "ip=$POD_IP ns=$NS host=$(hostname) pid=$$$$ home=$HOME path=$PATH"; echo "pw=$DB_PASSWORD"`)
	c := &pod.Spec.Containers[0]
	c.Command = append(c.Command, "arg0", "--bind=$(POD_IP)", "$$(POD_IP)", "two words")
	c.Env = []corev1.EnvVar{
		{Name: "POD_IP", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "status.podIP"}}},
		{Name: "NS", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.namespace"}}},
		{Name: "DB_PASSWORD", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "glance-db"}, Key: "password"}}},
	}
	objs := ObjectsOf(t, secretOf("glance-db", map[string]string{"password": "p@ss:w/o%rd"}))
	done := Run(t, pod, objs, Options{PATH: "/usr/bin:/bin"})
	require.True(t, done.Succeeded(), "%+v", done.Containers)
	lines := strings.Split(strings.TrimSpace(done.Containers[0].Log), "\n")
	require.Len(t, lines, 3)
	assert.Equal(t, "arg0|--bind="+done.IP+"|$(POD_IP)|two words|", lines[0], "argv exactly as rendered, $(VAR) expanded")
	// "$$$$" in the spec is "$$" for the shell, as the kubelet unescapes it.
	assert.Equal(t, fmt.Sprintf("ip=%s ns=openstack host=env pid=1 home=/root path=/usr/bin:/bin", done.IP), lines[1],
		"the pod's IP, its name as hostname, PID 1 of its own namespace, PATH from the options")
	assert.Equal(t, "pw=<redacted>", lines[2], "the Secret's value is masked in the log")
	assert.Regexp(t, `^127\.\d+\.\d+\.\d+$`, done.IP)
	assert.NotEqual(t, "127.0.0.1", done.IP)
}

func TestVolumesItemsModesAndSubPath(t *testing.T) {
	pod := shPod("volumes", `cd /etc/glance && for f in config/glance-api.conf config/sub/paste.ini backends/backends.conf glance-api-paste.ini info/labels info/name; do
  echo "$f $(stat -L -c '%a %u:%g' $f) $(cat $f | tr '\n' ';')"; done
ls -A /etc/glance/config | tr '\n' ' '; echo
readlink /etc/glance/config/glance-api.conf
ls -A /etc/glance/empty | tr '\n' ' '; echo; echo "emptyDir $(stat -c '%a' /var/lib/glance/staging)"`)
	pod.Spec.Volumes = []corev1.Volume{
		{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: "glance-config"},
			Items:                []corev1.KeyToPath{{Key: "glance-api.conf", Path: "glance-api.conf"}, {Key: "paste", Path: "sub/paste.ini", Mode: ptr[int32](0o600)}},
		}}},
		{Name: "backends", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "glance-backends", DefaultMode: ptr[int32](0o440)}}},
		{Name: "paste", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "glance-config"}}}},
		{Name: "info", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
			{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{
				{Path: "labels", FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.labels"}},
				{Path: "name", FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}},
			}}},
			{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "absent"}, Optional: ptr(true)}},
		}}}},
		{Name: "empty", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "absent"}, Optional: ptr(true)}}},
		{Name: "staging", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
	}
	pod.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{
		{Name: "config", MountPath: "/etc/glance/config"},
		{Name: "backends", MountPath: "/etc/glance/backends"},
		{Name: "paste", MountPath: "/etc/glance/glance-api-paste.ini", SubPath: "paste"},
		{Name: "info", MountPath: "/etc/glance/info"},
		{Name: "empty", MountPath: "/etc/glance/empty"},
		{Name: "staging", MountPath: "/var/lib/glance/staging"},
	}
	objs := ObjectsOf(t,
		configMapOf("glance-config", map[string]string{"glance-api.conf": "[DEFAULT]\nworkers = 1\n", "paste": "[pipeline:x]\n", "unused": "u"}),
		secretOf("glance-backends", map[string]string{"backends.conf": "[default]\ns3_store_secret_key = k3y-value\n"}))
	// A Secret's values are masked whole; a value inside one (a key in a
	// config file) is masked when the test names it.
	lines := strings.Split(strings.TrimSpace(runOK(t, pod, objs, Options{Redact: []string{"k3y-value"}})), "\n")
	assert.Equal(t, []string{
		"config/glance-api.conf 644 0:0 [DEFAULT];workers = 1;",
		"config/sub/paste.ini 600 0:0 [pipeline:x];",
		"backends/backends.conf 440 0:0 [default];s3_store_secret_key = <redacted>;",
		"glance-api-paste.ini 644 0:0 [pipeline:x];",
		`info/labels 644 0:0 app="volumes"`,
		"info/name 644 0:0 volumes",
		// Only the items are projected, as links into ..data.
		"..2 ..data glance-api.conf sub ",
		"..data/glance-api.conf",
		// An optional ConfigMap that is missing is an empty volume.
		"..2 ..data ",
		"emptyDir 777",
	}, normalizeStamp(lines))
}

// normalizeStamp shortens the atomic writer's timestamped directory name.
func normalizeStamp(lines []string) []string {
	for i, l := range lines {
		f := strings.Fields(l)
		for j, w := range f {
			if strings.HasPrefix(w, "..2") {
				f[j] = "..2"
			}
		}
		if strings.HasSuffix(l, " ") {
			lines[i] = strings.Join(f, " ") + " "
		} else {
			lines[i] = strings.Join(f, " ")
		}
	}
	return lines
}

func TestThisMachinesEtcGlanceIsNotVisible(t *testing.T) {
	// A file of this machine's /etc/glance (Debian's glance-api has some;
	// the test makes its own when there is none) must not be seen.
	var probe string
	if entries, err := os.ReadDir("/etc/glance"); err == nil && len(entries) > 0 {
		probe = "/etc/glance/" + entries[0].Name()
	} else {
		t.Skip("this machine has nothing in /etc/glance to hide")
	}
	missing := "/opt/podrun-" + strings.ToLower(t.Name()) + "/data"
	pod := shPod("hidden", `ls -A /etc/glance | tr '\n' ' '; echo; test -e "`+probe+`" && echo visible || echo hidden
echo written > `+missing+`/f && cat `+missing+`/f`)
	pod.Spec.Volumes = []corev1.Volume{
		{Name: "config", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
		{Name: "data", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
	}
	pod.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{
		{Name: "config", MountPath: "/etc/glance/config"},
		{Name: "data", MountPath: missing},
	}
	_, err := os.Stat("/etc/glance/config")
	configHere := err == nil
	lines := strings.Split(strings.TrimSpace(runOK(t, pod, nil, Options{})), "\n")
	assert.Equal(t, []string{"config ", "hidden", "written"}, lines, "only what the pod mounts is in /etc/glance")
	_, err = os.Stat("/etc/glance/config")
	assert.Equal(t, configHere, err == nil, "the pod's mount point was made in its namespace, not in this machine's /etc/glance")
	_, err = os.Stat(filepath.Dir(missing))
	assert.True(t, os.IsNotExist(err), "a mount point missing here was made in an overlay, not on this machine")
}

func TestUserGroupsAndFSGroupApplied(t *testing.T) {
	pod := shPod("user", `id -u; id -g; id -G; cat /etc/glance/secret/key; echo; stat -L -c '%a %g' /etc/glance/secret/key
stat -c '%a %g' /var/lib/glance/lock; touch /var/lib/glance/lock/x && echo lock-writable
grep -E '^(NoNewPrivs|CapBnd|CapEff)' /proc/self/status | tr -s '\t ' ' '
touch /usr/podrun-x 2>&1 | sed 's/.*: //'; touch /etc/glance/x 2>&1 | sed 's/.*: //'`)
	pod.Spec.SecurityContext = &corev1.PodSecurityContext{RunAsUser: ptr[int64](42415), RunAsGroup: ptr[int64](42415), FSGroup: ptr[int64](42415), RunAsNonRoot: ptr(true)}
	pod.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{
		AllowPrivilegeEscalation: ptr(false), ReadOnlyRootFilesystem: ptr(true),
		Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
	}
	pod.Spec.Volumes = []corev1.Volume{
		{Name: "secret", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "s", DefaultMode: ptr[int32](0o400)}}},
		{Name: "lock", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
	}
	pod.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{
		{Name: "secret", MountPath: "/etc/glance/secret"},
		{Name: "lock", MountPath: "/var/lib/glance/lock"},
	}
	objs := ObjectsOf(t, secretOf("s", map[string]string{"key": "readable-by-fsgroup"}))
	lines := strings.Split(strings.TrimSpace(runOK(t, pod, objs, Options{})), "\n")
	assert.Equal(t, []string{
		"42415", "42415", "42415",
		"<redacted>", "440 42415", // 0400 | 0440 with fsGroup: readable by the group
		"2777 42415", "lock-writable",
		"CapEff: 0000000000000000", "CapBnd: 0000000000000000", "NoNewPrivs: 1",
		"Read-only file system", "Read-only file system",
	}, lines)

	// Without fsGroup the same 0400 Secret is root's alone, as in a cluster.
	pod.Name = "user-no-fsgroup"
	pod.Spec.SecurityContext.FSGroup = nil
	pod.Spec.Containers[0].Command = []string{"sh", "-c", "id -G; cat /etc/glance/secret/key"}
	done := Run(t, pod, objs, Options{})
	assert.Equal(t, 1, done.Containers[0].ExitCode)
	assert.Contains(t, done.Containers[0].Log, "Permission denied")

	// runAsNonRoot with no user is refused, as the kubelet refuses it.
	pod.Name = "root-refused"
	pod.Spec.SecurityContext = &corev1.PodSecurityContext{RunAsNonRoot: ptr(true)}
	_, err := containerIdentity(pod, &pod.Spec.Containers[0], Options{})
	assert.ErrorContains(t, err, "runAsNonRoot and would run as root")
}

func TestInitContainersRunInOrderThenTheJobsContainer(t *testing.T) {
	pod := shPod("job", `cat /var/lib/podrun-job/order; exit 3`)
	pod.Spec.Volumes = []corev1.Volume{{Name: "work", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
	mount := []corev1.VolumeMount{{Name: "work", MountPath: "/var/lib/podrun-job"}}
	pod.Spec.Containers[0].VolumeMounts = mount
	pod.Spec.InitContainers = []corev1.Container{
		{Name: "first", Command: []string{"sh", "-c", "echo first >> /var/lib/podrun-job/order"}, VolumeMounts: mount},
		{Name: "second", Command: []string{"sh", "-c", "echo second >> /var/lib/podrun-job/order"}, VolumeMounts: mount, WorkingDir: "/var/lib/podrun-job/made-here"},
	}
	done := Run(t, pod, nil, Options{})
	require.Len(t, done.Init, 2)
	assert.Equal(t, 0, done.Init[0].ExitCode)
	assert.Equal(t, 0, done.Init[1].ExitCode)
	assert.Equal(t, "first\nsecond\n", done.Containers[0].Log)
	assert.Equal(t, 3, done.Containers[0].ExitCode)
	assert.False(t, done.Succeeded())

	// A failing init container ends the pod before its containers.
	pod.Name = "job-init-fails"
	pod.Spec.InitContainers[0].Command = []string{"sh", "-c", "echo broken; exit 7"}
	done = Run(t, pod, nil, Options{})
	require.Len(t, done.Init, 1)
	assert.Equal(t, 7, done.Init[0].ExitCode)
	assert.Empty(t, done.Containers)
	assert.False(t, done.Succeeded())
}

func TestACommandNotOnPATHFailsTheContainer(t *testing.T) {
	pod := shPod("no-such", "")
	pod.Spec.Containers[0].Command = []string{"glance-api", "--config-file=/etc/glance/x"}
	done := Run(t, pod, nil, Options{PATH: "/nonexistent/bin"})
	assert.Equal(t, launchFailedCode, done.Containers[0].ExitCode)
	assert.Contains(t, done.Containers[0].Log, `executable "glance-api" not found in PATH /nonexistent/bin`)
}

// t.TempDir carries the test's name, commas too, and overlayfs takes its
// layers in one option string where a ',' ends an option: an overlay made
// in such a directory still works.
func TestOverlayCommas(t *testing.T) {
	t.Run("parent,a,b", func(t *testing.T) {
		require.Contains(t, t.TempDir(), ",", "the test's directory has a comma")
		pod := shPod("comma", "echo made > /var/lib/podrun-test-mount-point/x/file; cat /var/lib/podrun-test-mount-point/x/file")
		pod.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "x", MountPath: "/var/lib/podrun-test-mount-point/x"}}
		pod.Spec.Volumes = []corev1.Volume{{Name: "x", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
		assert.Equal(t, "made\n", runOK(t, pod, nil, Options{}))
		_, err := os.Lstat("/var/lib/podrun-test-mount-point")
		assert.True(t, os.IsNotExist(err), "the mount point was made in the overlay only: %v", err)
	})
	t.Run("image,a,b", func(t *testing.T) {
		require.Contains(t, t.TempDir(), ",", "the test's directory has a comma")
		root := proc.UnstableRoot(t)
		image, err := os.ReadFile(filepath.Join(root, "etc", "debian_version"))
		require.NoError(t, err)
		assert.Equal(t, string(image), runOK(t, shPod("comma-root", "cat /etc/debian_version"), nil, Options{Root: root}))
	})
}

func TestTwoPodsServeTheSamePortOnTheirOwnAddresses(t *testing.T) {
	server := func(name string) Pod {
		p := shPod(name, "")
		c := &p.Spec.Containers[0]
		// As PID 1 of its namespace, python would ignore SIGTERM without a
		// handler; glance-api and uWSGI have one.
		c.Command = []string{"python3", "-c", `import http.server, os, signal, socketserver, sys
signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = (os.environ["POD_NAME"] + " " + self.path).encode()
        self.send_response(200 if self.path == "/healthcheck" else 404)
        self.end_headers(); self.wfile.write(body)
    def log_message(self, *a): pass
socketserver.TCPServer((os.environ["POD_IP"], 9292), H).serve_forever()`}
		c.Env = []corev1.EnvVar{
			{Name: "POD_IP", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "status.podIP"}}},
			{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
		}
		c.Ports = []corev1.ContainerPort{{Name: "api", ContainerPort: 9292}}
		probe := &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthcheck", Port: intstr.FromString("api")}}, PeriodSeconds: 1, FailureThreshold: 30}
		c.StartupProbe, c.ReadinessProbe = probe, probe
		c.LivenessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(9292)}}}
		return p
	}
	a := Start(t, server("api-a"), nil, Options{})
	b := Start(t, server("api-b"), nil, Options{})
	t.Logf("pod a ready in %s, pod b in %s", a.WaitReady(t).Round(time.Millisecond), b.WaitReady(t).Round(time.Millisecond))
	require.NotEqual(t, a.IP, b.IP)
	for _, r := range []*Running{a, b} {
		assert.True(t, r.Ready())
		resp, err := http.Get(r.URL("api") + "/healthcheck")
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Equal(t, r.Pod.Name+" /healthcheck", string(body))
	}
	took := a.Stop(t)
	t.Logf("pod a stopped in %s", took.Round(time.Millisecond))
	code, exited := a.ExitCode("main")
	assert.True(t, exited)
	assert.Equal(t, 0, code, "SIGTERM reached the server, which exited by itself")
	assert.False(t, a.Ready())
	assert.True(t, b.Ready(), "the other pod keeps serving")
	assert.Empty(t, b.Events())
}

func TestAStartupProbeThatNeverPassesIsReported(t *testing.T) {
	pod := shPod("never-ready", "sleep 600")
	c := &pod.Spec.Containers[0]
	c.Ports = []corev1.ContainerPort{{Name: "api", ContainerPort: 9292}}
	c.StartupProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/", Port: intstr.FromString("api")}}, PeriodSeconds: 1, FailureThreshold: 2}
	pod.Spec.TerminationGracePeriodSeconds = ptr[int64](1)
	r := Start(t, pod, nil, Options{})
	err := r.waitStartup(r.snapshot()[0], time.Now().Add(time.Minute))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the startup probe of container main did not pass within 2s")
	assert.Contains(t, err.Error(), "connection refused")
	// sh as PID 1 ignores SIGTERM: the SIGKILL after the grace period
	// ends it, as the kubelet's would.
	r.Stop(t)
	code, exited := r.ExitCode("main")
	assert.True(t, exited)
	assert.Equal(t, 128+9, code)
}

func TestASharedProcessNamespaceDeliversSIGTERMToACommandWithoutAHandler(t *testing.T) {
	// sleep installs no SIGTERM handler: as PID 1 the signal never reaches
	// it and the grace period ends in SIGKILL; with shareProcessNamespace
	// the pause process is PID 1, and SIGTERM's default action ends sleep.
	for _, shared := range []bool{false, true} {
		pod := shPod(fmt.Sprintf("shared-%t", shared), "exec sleep 600")
		pod.Spec.ShareProcessNamespace = ptr(shared)
		pod.Spec.TerminationGracePeriodSeconds = ptr[int64](2)
		r := StartReady(t, pod, nil, Options{})
		r.Stop(t)
		code, exited := r.ExitCode("main")
		require.True(t, exited)
		if shared {
			assert.Equal(t, 128+15, code, "not PID 1: SIGTERM ended it")
		} else {
			assert.Equal(t, 128+9, code, "PID 1 without a handler: only SIGKILL ended it")
		}
	}
}

// TestThePreStopSleepComesBeforeSIGTERM: Stop sleeps a container's preStop
// sleep (capped by MaxPreStopSleep) before its SIGTERM, so what the
// container still does during the sleep is done, as under the kubelet.
func TestThePreStopSleepComesBeforeSIGTERM(t *testing.T) {
	cases := map[string]struct {
		reason   string
		sleep    int64
		cap      time.Duration
		least    time.Duration
		most     time.Duration
		exitCode int
	}{
		"sleep":  {"a sleep within the cap is slept whole", 1, 5 * time.Second, time.Second, 4 * time.Second, 0},
		"capped": {"a longer sleep is cut at the cap", 30, 500 * time.Millisecond, 500 * time.Millisecond, 3 * time.Second, 0},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			pod := shPod("prestop-"+name, "trap 'exit 0' TERM; while :; do sleep 0.05; done")
			pod.Spec.Containers[0].Lifecycle = &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: tc.sleep}}}
			r := StartReady(t, pod, nil, Options{MaxPreStopSleep: tc.cap})
			took := r.Stop(t)
			code, exited := r.ExitCode("main")
			require.True(t, exited)
			assert.Equal(t, tc.exitCode, code, "SIGTERM came after the sleep and ended it by its trap")
			assert.GreaterOrEqual(t, took, tc.least, tc.reason)
			assert.Less(t, took, tc.most, tc.reason)
		})
	}
}

func TestUWSGIServesAsPIDOneAndStopsOnSIGTERM(t *testing.T) {
	if _, err := os.Stat("/usr/lib/uwsgi/plugins/python3_plugin.so"); err != nil {
		proc.Missing(t, "uWSGI with its Python 3 plugin (Debian packages uwsgi, uwsgi-plugin-python3)", "hack/install-services.sh installs them")
	}
	pod := shPod("uwsgi", "")
	c := &pod.Spec.Containers[0]
	c.Command = []string{"uwsgi", "--ini", "/etc/glance/config/uwsgi.ini"}
	c.Env = []corev1.EnvVar{{Name: "POD_IP", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "status.podIP"}}}}
	c.Ports = []corev1.ContainerPort{{Name: "api", ContainerPort: 9292}}
	c.ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/", Port: intstr.FromString("api")}}}
	c.SecurityContext = &corev1.SecurityContext{ReadOnlyRootFilesystem: ptr(true), RunAsUser: ptr[int64](42415), RunAsGroup: ptr[int64](42415)}
	c.VolumeMounts = []corev1.VolumeMount{{Name: "config", MountPath: "/etc/glance/config"}, {Name: "tmp", MountPath: "/tmp"}}
	pod.Spec.Volumes = []corev1.Volume{
		{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "uwsgi"}}}},
		{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
	}
	// uWSGI reads $(VAR) from its environment in an ini file itself.
	// die-on-term has the master send SIGINT to the workers. A worker
	// forked before the master's loop has, until it sets its own handler,
	// Python's SIGINT handler (Python is initialised in the master), which
	// only flags the signal for Python code that worker never runs while
	// it waits for requests: signalled that early on a busy machine, it
	// stayed in epoll_wait until the mercy (60 s) or the SIGKILL. The
	// hook-asap line gives it uWSGI's worker handler from the fork on, as
	// the rendered ini does (see hooks/glance loadingWorkerLines).
	objs := ObjectsOf(t, configMapOf("uwsgi", map[string]string{
		"uwsgi.ini": "[uwsgi]\nplugins = python3\nhttp-socket = $(POD_IP):9292\nwsgi-file = /etc/glance/config/app.py\nmaster = true\nprocesses = 2\nthreads = 2\ndie-on-term = true\n" +
			"hook-asap = unix_signal:2 end_me\nskip-atexit = true\n",
		"app.py": "import os\ndef application(env, start):\n    start('200 OK', [('Content-Type', 'text/plain')])\n    return [('%d %s' % (os.getuid(), env['PATH_INFO'])).encode()]\n",
	}))
	r := StartReady(t, pod, objs, Options{})
	resp, err := http.Get(r.URL("api") + "/v2/info/stores")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, "42415 /v2/info/stores", string(body))
	r.Stop(t)
	code, exited := r.ExitCode("main")
	require.True(t, exited)
	assert.Equal(t, 0, code, "die-on-term: uWSGI ends on SIGTERM by itself; its log:\n%s", r.Logs("main"))
}

// recordingTB keeps the errors a harness call reports instead of failing.
type recordingTB struct {
	testing.TB
	errors []string
}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func TestAFailingLivenessProbeIsReported(t *testing.T) {
	pod := shPod("liveness", "trap 'exit 0' TERM; while :; do sleep 0.1; done")
	c := &pod.Spec.Containers[0]
	c.Ports = []corev1.ContainerPort{{Name: "api", ContainerPort: 9292}}
	c.LivenessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromString("api")}}, FailureThreshold: 2}
	r := StartReady(t, pod, nil, Options{ProbeInterval: 50 * time.Millisecond})
	assert.True(t, r.Ready(), "no readiness probe: ready once running")
	deadline := time.Now().Add(30 * time.Second)
	for len(r.Events()) == 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	require.Len(t, r.Events(), 1)
	assert.Contains(t, r.Events()[0], "container main failed its liveness probe 2 times")
	rec := &recordingTB{TB: t}
	r.Stop(rec)
	require.Len(t, rec.errors, 1, "Stop fails the test for it")
	assert.Contains(t, rec.errors[0], "pod liveness: container main failed its liveness probe")
	code, _ := r.ExitCode("main")
	assert.Equal(t, 0, code, "the shell's TERM trap ran")
}

// What the machine holds under the image's directories does not reach a
// container: a root-only /var/lib/glance/staging made by someone else, and
// Debian's 0750 glance:glance /var/lib/glance, neither hide the volume
// mounted there from the container's user, and the container sees only its
// own mount points.
func TestMachineDirectoriesUnderTheImagesAreNotTheContainers(t *testing.T) {
	pod := shPod("premade", `ls -A /var/lib/glance; ls -A /etc/glance; stat -c '%a %U' /var/lib/glance
touch /var/lib/glance/staging/x && echo staging-writable`)
	pod.Spec.SecurityContext = &corev1.PodSecurityContext{RunAsUser: ptr[int64](42415), RunAsGroup: ptr[int64](42415), FSGroup: ptr[int64](42415)}
	pod.Spec.Volumes = []corev1.Volume{{Name: "staging", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
	pod.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "staging", MountPath: "/var/lib/glance/staging"}}
	machine := Options{MachineDirs: []string{"/var/lib/glance/staging", "/etc/glance/podrun-premade"}}
	lines := strings.Split(strings.TrimSpace(runOK(t, pod, nil, machine)), "\n")
	assert.Equal(t, []string{"staging", "755 root", "staging-writable"}, lines,
		"/var/lib/glance holds the volume's mount point only, /etc/glance nothing, and the user reaches the volume")
	_, err := os.Stat("/var/lib/glance/staging/x")
	assert.True(t, os.IsNotExist(err), "the container wrote into its volume, not into the machine's directory: %v", err)
	_, err = os.Stat("/etc/glance/podrun-premade")
	assert.True(t, os.IsNotExist(err), "the machine's directories were made in the container's namespace only: %v", err)
}

// The directories a test pretends the machine holds are the container's
// alone: root's and closed, and nowhere on this machine.
func TestMachineDirsStayInTheContainer(t *testing.T) {
	dir := "/var/lib/podrun-machine-" + strings.ToLower(t.Name()) + "/a"
	pod := shPod("machinedirs", `stat -c '%a %u' `+dir)
	out := runOK(t, pod, nil, Options{MachineDirs: []string{dir}})
	assert.Equal(t, "700 0", strings.TrimSpace(out), "made root's and closed, as another program might leave it")
	_, err := os.Stat(filepath.Dir(dir))
	assert.True(t, os.IsNotExist(err), "nothing was made on this machine: %v", err)
}

// TestClusterDNS: a Service name the options map resolves in the pod, as
// the cluster's DNS would resolve it, through the pod's /etc/hosts.
func TestClusterDNS(t *testing.T) {
	pod := shPod("dns", `getent hosts openstack-db.openstack.svc; getent hosts no-such.openstack.svc || echo unresolved`)
	log := runOK(t, pod, ObjectsOf(t), Options{PATH: "/usr/bin:/bin", ClusterDNS: map[string]string{"openstack-db.openstack.svc": "127.0.0.1"}})
	lines := strings.Fields(log)
	assert.Equal(t, []string{"127.0.0.1", "openstack-db.openstack.svc", "unresolved"}, lines)
}

// TestARootIsTheImage: a container of Options.Root sees that system as
// its /, with its volumes mounted in it and its own /proc; what it writes
// there is its own, as each container's copy of its image is: neither the
// image nor the next container sees it. It needs the Debian unstable
// system hack/install-glance-debian.sh unstable makes (GLANCE_UNSTABLE_ROOT).
func TestARootIsTheImage(t *testing.T) {
	root := proc.UnstableRoot(t)
	host, err := os.ReadFile("/etc/debian_version")
	require.NoError(t, err)
	image, err := os.ReadFile(filepath.Join(root, "etc", "debian_version"))
	require.NoError(t, err)
	require.NotEqual(t, string(host), string(image), "the image is another Debian than this machine's")

	pod := shPod("rooted", `cat /etc/debian_version; cat /etc/glance/config/glance-api.conf; echo "pid=$$$$"
test -e /written-by-an-earlier-container && echo "seen"; echo x > /written-by-an-earlier-container; echo done`)
	pod.Spec.Volumes = []corev1.Volume{{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
		LocalObjectReference: corev1.LocalObjectReference{Name: "glance-config"}}}}}
	pod.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "config", MountPath: "/etc/glance/config"}}
	objs := ObjectsOf(t, configMapOf("glance-config", map[string]string{"glance-api.conf": "[DEFAULT]\n"}))
	for range 2 {
		log := runOK(t, pod, objs, Options{Root: root})
		assert.Equal(t, string(image)+"[DEFAULT]\npid=1\ndone\n", log, "the image's system, the volume in it, PID 1 of its own /proc, nothing of an earlier container")
	}
	_, err = os.Lstat(filepath.Join(root, "written-by-an-earlier-container"))
	assert.True(t, os.IsNotExist(err), "the image is left as it was: %v", err)
}
