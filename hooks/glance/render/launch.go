package render

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/contract/release"
	"github.com/c5c3/glance-hooks/hooks/contract/storeconf"
)

// UWSGIFrom is the first release whose glance-api runs under uWSGI (see
// release.UWSGIFrom for why).
var UWSGIFrom = release.UWSGIFrom

// LaunchMode is how the glance-api container serves.
type LaunchMode string

const (
	// Eventlet is the glance-api console script, releases before 2026.1.
	Eventlet LaunchMode = "eventlet"
	// UWSGI is uWSGI serving Glance's WSGI application, from 2026.1.
	UWSGI LaunchMode = "uwsgi"
)

// LaunchModeOf is the launch mode of a release.
func LaunchModeOf(r release.Release) LaunchMode {
	if r.AtLeast(UWSGIFrom) {
		return UWSGI
	}
	return Eventlet
}

// TerminationGraceSeconds is how long a glance-api pod has between
// SIGTERM and SIGKILL (Kubernetes' default, written out because the
// uWSGI ini's worker mercy is derived from it), unless the longest
// request allowed needs more (see graceSeconds).
const TerminationGraceSeconds = 30

// PreStopSleepSeconds is the preStop sleep of a spec that sets none:
// the pod is taken out of its Service's endpoints when it is deleted,
// at the same time as the kubelet starts to stop it, and kube-proxy,
// a Gateway and the other nodes learn of it a few seconds later. For
// those seconds new requests still reach the pod; after them only
// requests already taken are left. The eventlet server's workers end
// at once on SIGTERM, so this sleep is also the time its requests in
// flight have to finish.
const PreStopSleepSeconds = 5

// stopMarginSeconds is what the grace period keeps beyond the preStop
// sleep and the worker mercy: the time the master needs to kill a
// worker after the mercy and to exit.
const stopMarginSeconds = 10

// GraceSeconds is the glance-api pods' grace period: the spec's, or long
// enough for the longest request allowed to finish after the preStop sleep
// (uWSGI's harakiri ends a request that runs longer; with uWSGI's worker
// mercy as long as harakiri, the master waits for such a request), and at
// least the Kubernetes default. The eventlet server has no bound on a
// request and no drain after SIGTERM: it gets the default.
func GraceSeconds(spec api.GlanceSpec) int64 {
	if d := spec.Deployment; d != nil && d.TerminationGracePeriodSeconds != nil {
		return *d.TerminationGracePeriodSeconds
	}
	longest := int64(0)
	if a := spec.APIServer; a != nil && a.UWSGI != nil && a.UWSGI.Harakiri != nil {
		longest = int64(*a.UWSGI.Harakiri)
	}
	return max(TerminationGraceSeconds, PreStopSeconds(spec)+longest+stopMarginSeconds)
}

// PreStopSeconds is the pods' preStop sleep: the spec's (0 for none) or
// PreStopSleepSeconds.
func PreStopSeconds(spec api.GlanceSpec) int64 {
	if d := spec.Deployment; d != nil && d.PreStopSleepSeconds != nil {
		return *d.PreStopSleepSeconds
	}
	return PreStopSleepSeconds
}

// Environment variables of the glance-api container.
const (
	// EnvPodIP holds the pod's IP from the downward API. glance-api listens
	// on it rather than on every address, so each pod has an address of its
	// own to be reached and named by, and two pods of one Deployment can
	// share a host and port in a test that runs them as local processes.
	EnvPodIP = "POD_IP"
	// EnvBindHost is oslo.config's environment override of [DEFAULT]
	// bind_host, the eventlet server's listen address.
	EnvBindHost = "OS_DEFAULT__BIND_HOST"
	// EnvWorkerSelfURL overrides [DEFAULT] worker_self_reference_url: the
	// URL other glance-api pods reach this one at. A pod that stages image
	// data records it on the image, and a pod asked to import (or delete)
	// that image hands the request to it, where the data is.
	EnvWorkerSelfURL = "OS_DEFAULT__WORKER_SELF_REFERENCE_URL"
	// EnvConfigDir is where Glance's WSGI application (the uWSGI mode) reads
	// glance-api.conf and glance-api-paste.ini; it takes no arguments.
	EnvConfigDir = "OS_GLANCE_CONFIG_DIR"
	// EnvDatabaseConnection and EnvServicePassword are oslo.config's
	// environment overrides of [database] connection and
	// [keystone_authtoken] password: secrets reach glance-api through them,
	// never through a file, each from a Secret the hook writes with the
	// value escaped for oslo.config (see osloEnvValue).
	EnvDatabaseConnection = "OS_DATABASE__CONNECTION"
	EnvServicePassword    = "OS_KEYSTONE_AUTHTOKEN__PASSWORD"
	// EnvUser names the user GlanceUID is, for Python's getpass.getuser(),
	// which reads it before the passwd database. An image need not have
	// GlanceUID in /etc/passwd (a distribution's package makes its own
	// glance user), and on Python 3.13 getuser() then raises OSError,
	// where it raised KeyError before: PyMySQL up to 1.1.1 calls it on
	// import and catches only KeyError, so every glance program of
	// 2025.1's Debian 13 (glance 30, PyMySQL 1.1.1, Python 3.13) died at
	// its first database connection as a uid without a name.
	EnvUser = "USER"
	// GlanceUser is EnvUser's value.
	GlanceUser = "glance"
)

// UserEnv names the user every glance container runs as (EnvUser).
func UserEnv() corev1.EnvVar { return corev1.EnvVar{Name: EnvUser, Value: GlanceUser} }

// Command is the glance-api container's command and arguments. Both modes
// read the same files: glance-api.conf from ConfigDir and every *.conf in
// BackendsDir. The eventlet server (glance-api's main, see
// eventletLauncher) is told so; the WSGI application takes no
// arguments, and finds glance-api.conf through OS_GLANCE_CONFIG_DIR and
// BackendsDir as oslo.config's default config directory of project glance
// (/etc/glance/glance.conf.d).
func Command(mode LaunchMode) (cmd, args []string) {
	if mode == UWSGI {
		return []string{"uwsgi"}, []string{"--ini", ConfigDir + "/" + UWSGIFile}
	}
	return []string{"python3", "-c", EventletLauncher}, ConfigArgs()
}

// EventletLauncher runs what the glance-api console script runs
// (glance.cmd.api's main) and, once main returns, leaves the process with
// os._exit instead of Python's interpreter shutdown. main returns after
// SIGTERM, when glance-api's parent has signalled its workers and seen
// them gone; all that is left is the shutdown: tearing down every module
// Glance imported, which is CPU work (5.6 to 9.2 s of wall time per stop
// measured on a 2-core machine at load 35, 0.2 to 0.4 s with this
// launcher) plus waiting for threads at exit, and a busy node stretched it
// past the grace period. Nothing is lost by skipping it: every worker has
// exited, oslo.log writes each record through, and the streams are flushed
// first. A failing start leaves main by sys.exit as before, with its exit
// code. sys.argv[0] is the console script's name, which oslo.config reads.
const EventletLauncher = "import os, sys; sys.argv[0] = 'glance-api'; from glance.cmd.api import main; main(); " +
	"sys.stdout.flush(); sys.stderr.flush(); os._exit(0)"

// ConfigArgs are the oslo.config arguments of every glance program the hooks
// run (glance-api in the eventlet mode, glance-manage in the schema Jobs).
func ConfigArgs() []string {
	return []string{"--config-file=" + ConfigDir + "/" + names.ConfigFile, "--config-dir=" + BackendsDir}
}

// LaunchEnv is the environment every glance container gets, in order: a
// $(VAR) reference needs the variable defined before it.
func LaunchEnv(g *api.Glance, spec api.GlanceSpec) []corev1.EnvVar {
	return []corev1.EnvVar{
		{Name: EnvPodIP, ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "status.podIP"}}},
		{Name: EnvBindHost, Value: "$(" + EnvPodIP + ")"},
		{Name: EnvWorkerSelfURL, Value: fmt.Sprintf("http://$(%s):%d", EnvPodIP, APIPort)},
		{Name: EnvConfigDir, Value: ConfigDir},
		secretEnv(EnvDatabaseConnection, names.DBConnectionSecretName(g.Name), names.DBConnectionKey),
		secretEnv(EnvServicePassword, names.AuthtokenSecretName(g.Name), names.AuthtokenPasswordKey),
		UserEnv(),
	}
}

// OsloEnvValue is a value as an OS_<GROUP>__<OPTION> variable must hold it:
// oslo.config interpolates '$' in environment values as it does in files
// ("$name" is another option's value, a '$' alone an error), and "$$" is a
// literal '$' in both (checked on oslo.config 9.0: OS_GRP__OPT='a$$b'
// reads a$b, 'a$b' fails with "no such option b").
func OsloEnvValue(v string) string { return storeconf.Escape(v) }

func secretEnv(name, secret, key string) corev1.EnvVar {
	return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
		LocalObjectReference: corev1.LocalObjectReference{Name: secret}, Key: key}}}
}

// chunkedInputLimit is the largest request chunk uWSGI accepts, in bytes:
// its 1 MB default is smaller than the 1 MiB chunks glanceclient uploads in.
const chunkedInputLimit = 16 << 20

// WorkerMercySeconds bounds how long uWSGI's master waits for a worker to
// finish its requests after SIGTERM before it kills it
// (worker-reload-mercy, 60 s by default): what the grace period leaves
// after the preStop sleep and the margin the master needs to exit, so the
// master always exits by itself before the kubelet's SIGKILL. With the
// grace period derived from harakiri (graceSeconds) it is harakiri: a
// request uWSGI allows is never cut by the stop.
func WorkerMercySeconds(spec api.GlanceSpec) int64 {
	return max(GraceSeconds(spec)-PreStopSeconds(spec)-stopMarginSeconds, 1)
}

// loadingWorkerLines end a worker at once when the master tells it to stop
// while it still loads Glance (lazy-apps), before uWSGI gave it its own
// signal handlers. Until then a worker has what it inherited at the fork:
// the first workers, forked before the master's loop, ignore SIGHUP (the
// graceful stop's signal; uWSGI ignores it while it starts) and have
// Python's SIGINT handler, which only flags the signal for Python code
// the worker never runs again; a worker respawned later runs the master's
// own handler, which signals the other workers and returns. Either way the
// worker went on to load, served, and was killed only after the mercy (20
// s with the defaults, seen on a loaded machine; uWSGI's default 60 s
// outlived the grace period). end_me is the handler uWSGI gives a worker
// for SIGINT: with skip-atexit it leaves by _exit, since a worker stopped
// in the middle of an import must not run Python's exit in a signal
// handler, and has no request and no task to drain yet. hook-asap sets it
// before the first fork (and before Python, which then leaves SIGINT
// alone); hook-post-fork sets it in every worker right after its fork,
// before it loads the application. A worker that loaded gets uWSGI's own
// handlers, and the graceful stop above.
var loadingWorkerLines = []string{
	"# A worker told to stop while it still loads Glance ends at once.",
	"hook-asap = unix_signal:1 end_me",
	"hook-asap = unix_signal:2 end_me",
	"hook-post-fork = unix_signal:1 end_me",
	"skip-atexit = true",
}

// RenderUWSGI renders the uWSGI ini of the uWSGI launch mode. uWSGI expands
// $(POD_IP) from its environment when it reads the file.
func RenderUWSGI(spec api.GlanceSpec) string {
	lines := []string{
		"[uwsgi]",
		"# Debian's uWSGI loads Python as a plugin; a uWSGI built with Python",
		"# (pip) logs that it has no such plugin file and carries on.",
		"plugins = python3",
		"# HTTP straight from the workers, on the pod's own address.",
	}
	lines = append(lines, httpSocketLines(*spec.APIServer.UWSGI)...)
	lines = append(lines,
		"# The application factory of every release from Zed on (glance.wsgi.api",
		"# of newer releases calls the same). It reads its config from",
		"# OS_GLANCE_CONFIG_DIR and oslo.config's default config directory.",
		"eval = import glance.common.wsgi_app; application = glance.common.wsgi_app.init_app()",
		"need-app = true",
		"master = true",
		fmt.Sprintf("processes = %d", *spec.APIServer.UWSGI.Processes),
		fmt.Sprintf("threads = %d", *spec.APIServer.UWSGI.Threads),
		"enable-threads = true",
		"# Every worker loads the application itself, after the fork.",
		"lazy-apps = true",
		"single-interpreter = true",
		"thunder-lock = true",
		"buffer-size = 65535",
		"# Chunked uploads (glanceclient sends 1 MiB chunks).",
		"wsgi-manage-chunked-input = true",
		fmt.Sprintf("chunked-input-limit = %d", chunkedInputLimit),
		"# SIGTERM ends the workers once their requests are answered, and",
		"# Glance's own exit hook has drained its task pool; a worker not done",
		"# after the mercy is killed, so the master exits within the pod's",
		fmt.Sprintf("# grace period (%d s).", GraceSeconds(spec)),
		"die-on-term = true",
		"hook-master-start = unix_signal:15 gracefully_kill_them_all",
		fmt.Sprintf("worker-reload-mercy = %d", WorkerMercySeconds(spec)),
	)
	lines = append(lines, loadingWorkerLines...)
	if h := spec.APIServer.UWSGI.Harakiri; h != nil {
		lines = append(lines, "# A worker still on one request after this long is ended.", fmt.Sprintf("harakiri = %d", *h))
	}
	return strings.Join(lines, "\n") + "\n"
}

// httpSocketLines are the uWSGI ini's listening socket. By default
// http-socket, which closes the connection after each answer: it says so,
// or a client reusing the connection (keystoneauth, Go) reads a reset, and
// an idle connection holds no worker thread. With httpKeepAlive,
// http11-socket keeps connections open (HTTP/1.1), and an idle one is
// closed after httpKeepAliveTimeout (uWSGI's socket-timeout).
func httpSocketLines(u api.UWSGISpec) []string {
	addr := fmt.Sprintf("$(%s):%d", EnvPodIP, APIPort)
	if u.HTTPKeepAlive == nil || !*u.HTTPKeepAlive {
		return []string{"http-socket = " + addr,
			"# http-socket closes the connection after each answer: say so, or a",
			"# client reusing it (keystoneauth, Go) reads a reset. No keep-alive",
			"# (http11-socket): an idle connection would hold a worker thread.",
			"add-header = Connection: close"}
	}
	out := []string{"# HTTP/1.1: a client may reuse its connection.", "http11-socket = " + addr}
	if t := u.HTTPKeepAliveTimeout; t != nil {
		out = append(out, fmt.Sprintf("socket-timeout = %d", *t))
	}
	return out
}
