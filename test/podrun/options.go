package podrun

import (
	"time"

	"github.com/c5c3/glance-hooks/test/proc"
)

// DebianPATH is where Debian's packages put the programs an image of the
// project has in /var/lib/openstack/bin: the one difference between a pod
// run here and one run from the image.
const DebianPATH = proc.SystemPath

// Options say what the harness cannot read from the pod spec: what the image
// would have provided, and bounds of the test.
type Options struct {
	// PATH replaces the image's PATH (default DebianPATH). A PATH the
	// container's env sets wins, as it would over the image's.
	PATH string
	// ImageEnv is the rest of the image's environment (NAME=value).
	ImageEnv []string
	// Root is the image's file system: a directory holding a whole system
	// (say, another Debian release's, made by mmdebstrap) that each
	// container sees as its /, through an overlay whose upper layer is the
	// container's own, as a runtime gives each container a copy of its
	// image. Empty: the container sees this machine's file system.
	Root string
	// ImageUser is the image's USER, used when the pod and container set no
	// runAsUser (default 0).
	ImageUser *int64
	// Home is HOME when the container's user has no home directory in this
	// machine's /etc/passwd (default "/", as container runtimes do).
	Home string
	// WorkingDir is the image's WORKDIR, used when the container sets none
	// (default "/").
	WorkingDir string
	// Entrypoint is the image's ENTRYPOINT, used when a container has no
	// command; without it such a container is an error.
	Entrypoint []string
	// HiddenPaths are covered, in every container, with an empty tmpfs of
	// its own (root's, mode 0755): the directories the image owns, whose
	// content and permissions must be the image's whatever this machine
	// holds there (default ["/etc/glance", "/var/lib/glance"]). Debian's
	// /var/lib/glance is 0750 glance:glance, so a mount point under it that
	// something else made would sit behind a directory the container's
	// user cannot enter; the image's config is in no /etc/glance file.
	HiddenPaths []string
	// MachineDirs are directories this machine holds as far as the
	// container's namespace knows, root's and closed to everyone else, as
	// another program might have left them (under HiddenPaths, say): each
	// is made in an overlay of its nearest existing parent inside the
	// container's own mount namespace, before the covers and volumes, so a
	// test of what a container must not see of the machine changes nothing
	// on the machine and cannot meet another run's.
	MachineDirs []string
	// Timeout bounds waiting for readiness, and for a run-to-completion pod
	// unless its activeDeadlineSeconds is shorter (default 5 minutes).
	Timeout time.Duration
	// ProbeInterval is how often probes are tried (default 250ms): the
	// rendered period's time budget is kept (initialDelaySeconds +
	// periodSeconds × failureThreshold) but tried more often, so a test does
	// not wait out whole periods.
	ProbeInterval time.Duration
	// MaxGracePeriod caps the pod's terminationGracePeriodSeconds between
	// SIGTERM and SIGKILL (default 15s).
	MaxGracePeriod time.Duration
	// MaxPreStopSleep caps a container's preStop sleep, taken before its
	// SIGTERM as the kubelet takes it (default 1s, so a test that does not
	// look at the drain does not wait the rendered seconds).
	MaxPreStopSleep time.Duration
	// Redact are further secrets to mask in the logs shown (every value of
	// a Secret the pod reads is masked already).
	Redact []string
	// ClusterDNS are names the pods resolve, by name, to an address, as
	// the cluster's DNS resolves a Service's <name>.<namespace>.svc: each
	// is a line of the pod's /etc/hosts.
	ClusterDNS map[string]string
}

func (o Options) withDefaults() Options {
	if o.PATH == "" {
		o.PATH = DebianPATH
	}
	if o.Home == "" {
		o.Home = "/"
	}
	if o.WorkingDir == "" {
		o.WorkingDir = "/"
	}
	if o.HiddenPaths == nil {
		o.HiddenPaths = []string{"/etc/glance", "/var/lib/glance"}
	}
	if o.Timeout <= 0 {
		o.Timeout = 5 * time.Minute
	}
	if o.ProbeInterval <= 0 {
		o.ProbeInterval = 250 * time.Millisecond
	}
	if o.MaxGracePeriod <= 0 {
		o.MaxGracePeriod = 15 * time.Second
	}
	if o.MaxPreStopSleep <= 0 {
		o.MaxPreStopSleep = time.Second
	}
	return o
}
