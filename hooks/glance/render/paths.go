package render

import "github.com/c5c3/glance-hooks/hooks/contract/api"

// Paths inside the glance-api container. The image has nothing under
// /etc/glance, and the two launch modes find their config differently: the
// eventlet server and glance-manage take --config-file and --config-dir
// arguments, while Glance's WSGI application (uWSGI) takes none and reads
// the fixed names glance-api-paste.ini and glance-api.conf from
// $OS_GLANCE_CONFIG_DIR, plus every *.conf in oslo.config's default config
// directory of project glance, /etc/glance/glance.conf.d. So the config
// ConfigMap (volume "config": glance-api.conf, the paste pipeline and the
// uWSGI ini) is mounted whole at ConfigDir, named by OS_GLANCE_CONFIG_DIR,
// and the backends Secret (volume "backends": backends.conf) whole at
// BackendsDir, the default config directory, which the eventlet server and
// glance-manage are also given as --config-dir. Two sibling directory mounts
// of the guide's two volumes: no subPath (which Kubernetes never refreshes
// and a local runner must emulate), no projected volume (which would hide
// the names the guide reads with kubectl), and no mount inside another
// volume's mount.
const (
	ConfigDir     = "/etc/glance/config"
	PasteFile     = "glance-api-paste.ini"
	UWSGIFile     = "glance-api-uwsgi.ini"
	BackendsDir   = "/etc/glance/glance.conf.d"
	StateDir      = "/var/lib/glance"
	StagingDir    = StateDir + "/staging"
	TasksDir      = StateDir + "/tasks"
	LockDir       = StateDir + "/lock"
	PasteConfig   = ConfigDir + "/" + PasteFile
	APIPort       = api.GlanceAPIPort
	MemcachedPort = 11211
)
