package render

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/glance/decide"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
)

const (
	ContainerName = "glance-api"
	PortName      = "api"
	// HealthPath is what the probes ask: the paste file's healthcheck application.
	HealthPath = "/healthcheck"
	// GlanceUID is the uid glance-api runs as (the kolla convention for
	// glance images); the pod refuses to run as root.
	GlanceUID = int64(42415)
)

// DeploymentChild and serviceChild are what the hook returns: the API types
// without status, which belongs to the Deployment and Service controllers.
type DeploymentChild struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              appsv1.DeploymentSpec `json:"spec"`
}

type serviceChild struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              corev1.ServiceSpec `json:"spec"`
}

// Mounts is what every glance container of a Glance mounts.
type Mounts struct {
	ConfigMap, BackendsSecret string
}

// PodInputs is what every glance pod of a Glance is rendered around: the
// config it mounts and the credentials digest on its template.
type PodInputs struct {
	Mounts Mounts
	Digest string
	// EveryPod are the features' changes to every pod template, JobPod
	// those to the pod template of every glance-manage Job.
	EveryPod []func(*corev1.PodSpec, api.GlanceSpec)
	JobPod   []func(*corev1.PodSpec, api.GlanceSpec)
}

// mountEveryPod runs the features' changes to every pod template.
func mountEveryPod(spec api.GlanceSpec, pod *corev1.PodSpec, everyPod []func(*corev1.PodSpec, api.GlanceSpec)) {
	for _, change := range everyPod {
		change(pod, spec)
	}
}

// program is one glance program: its container's name, image, command and
// arguments.
type program struct {
	name, image string
	cmd, args   []string
}

// glanceContainer is a container of the glance image with the config, the
// state directories, the environment and the restrictions every glance
// program of a Glance runs with: glance-api and the schema Jobs' glance-manage.
func glanceContainer(g *api.Glance, spec api.GlanceSpec, p program) corev1.Container {
	return corev1.Container{
		Name:    p.name,
		Image:   p.image,
		Command: p.cmd,
		Args:    p.args,
		Env:     LaunchEnv(g, spec),
		VolumeMounts: []corev1.VolumeMount{
			{Name: names.VolumeConfig, MountPath: ConfigDir, ReadOnly: true},
			{Name: names.VolumeBackends, MountPath: BackendsDir, ReadOnly: true},
			{Name: VolumeStaging, MountPath: StagingDir},
			{Name: VolumeTasks, MountPath: TasksDir},
			{Name: VolumeLock, MountPath: LockDir},
			{Name: VolumeTmp, MountPath: "/tmp"},
		},
		SecurityContext: RestrictedContainer(),
	}
}

// RestrictedContainer is how every container of a Glance runs: no privilege
// escalation, a read-only root filesystem, no capabilities.
func RestrictedContainer() *corev1.SecurityContext {
	yes, no := true, false
	return &corev1.SecurityContext{
		AllowPrivilegeEscalation: &no,
		ReadOnlyRootFilesystem:   &yes,
		Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
	}
}

// glancePod is the pod spec around glance containers: non-root as
// GlanceUID, no service account token, the config volumes and the state
// volumes they mount; where they run is the placement feature's.
func glancePod(m Mounts, state []corev1.Volume, containers ...corev1.Container) corev1.PodSpec {
	yes, no := true, false
	uid := GlanceUID
	readOnly := int32(0o440)
	return corev1.PodSpec{
		AutomountServiceAccountToken: &no,
		EnableServiceLinks:           &no,
		SecurityContext: &corev1.PodSecurityContext{
			RunAsNonRoot:   &yes,
			RunAsUser:      &uid,
			RunAsGroup:     &uid,
			FSGroup:        &uid,
			SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
		},
		Containers: containers,
		Volumes: append([]corev1.Volume{
			{Name: names.VolumeConfig, VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
				LocalObjectReference: corev1.LocalObjectReference{Name: m.ConfigMap}}}},
			{Name: names.VolumeBackends, VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
				SecretName: m.BackendsSecret, DefaultMode: &readOnly}}},
		}, state...),
	}
}

// notPIDOne is the pod's shareProcessNamespace: true for the eventlet
// server, so the pause process is PID 1 and glance-api is not. glance-api
// installs its SIGTERM handler only once it has loaded Glance and starts
// its workers; until then SIGTERM has its default action, which the kernel
// never takes on a PID namespace's init. As PID 1, a glance-api stopped
// while it starts (a rollout or scale-down right after a scale-up) ignored
// the signal, went on to serve and ran until the SIGKILL at the end of the
// grace period; not PID 1, it ends at once. uWSGI's master handles SIGTERM
// from its first moment and stays PID 1.
func notPIDOne(mode LaunchMode) *bool {
	if mode != Eventlet {
		return nil
	}
	yes := true
	return &yes
}

// Deployment runs glance-api with the two hashed objects mounted; their
// names, the image and the credentials digest are in the pod template, so
// a change of any of them rolls the pods.
func Deployment(g *api.Glance, spec api.GlanceSpec, run decide.RunTarget, in PodInputs, replicas *int32) *DeploymentChild {
	maxUnavailable, maxSurge := intstr.FromInt32(0), intstr.FromInt32(1)
	// /healthcheck is oslo.middleware's healthcheck application, outside
	// the paste pipeline: it answers without a token, a database or Keystone, in
	// both launch modes.
	health := corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: HealthPath, Port: intstr.FromString(PortName)}}
	mode := LaunchModeOf(run.Release)
	cmd, args := Command(mode)
	container := glanceContainer(g, spec, program{ContainerName, run.Image, cmd, args})
	container.Ports = []corev1.ContainerPort{{Name: PortName, ContainerPort: APIPort, Protocol: corev1.ProtocolTCP}}
	// Every worker imports glance before the first answer; on a busy node
	// that has taken over a minute.
	container.StartupProbe = &corev1.Probe{ProbeHandler: health, PeriodSeconds: 5, FailureThreshold: 60, TimeoutSeconds: 5}
	container.ReadinessProbe = &corev1.Probe{ProbeHandler: health, PeriodSeconds: 10, FailureThreshold: 3, TimeoutSeconds: 5}
	// A generous timeout: a worker busy with an upload answers late.
	container.LivenessProbe = &corev1.Probe{ProbeHandler: health, PeriodSeconds: 20, FailureThreshold: 3, TimeoutSeconds: 10}
	container.Resources = *spec.Deployment.Resources
	pod := glancePod(in.Mounts, APIStateVolumes(spec), container)
	grace := GraceSeconds(spec)
	pod.TerminationGracePeriodSeconds = &grace
	if p := PreStopSeconds(spec); p > 0 {
		// The kubelet's own sleep: the image needs no sleep binary.
		pod.Containers[0].Lifecycle = &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: p}}}
	}
	pod.ShareProcessNamespace = notPIDOne(mode)
	mountEveryPod(spec, &pod, in.EveryPod)
	return &DeploymentChild{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: g.Name, Namespace: g.Namespace, Labels: model.ObjectLabels(g)},
		Spec: appsv1.DeploymentSpec{
			Replicas: replicas,
			Selector: &metav1.LabelSelector{MatchLabels: model.SelectorLabels(g)},
			Strategy: rolloutStrategy(spec, &maxUnavailable, &maxSurge),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: model.ObjectLabels(g),
					Annotations: map[string]string{names.AnnotationCredentialsDigest: in.Digest}},
				Spec: pod,
			},
		},
	}
}

// Service exposes the API on 9292 inside the cluster.
func Service(g *api.Glance) *serviceChild {
	return &serviceChild{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Name: g.Name, Namespace: g.Namespace, Labels: model.ObjectLabels(g)},
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeClusterIP,
			Selector: model.SelectorLabels(g),
			Ports: []corev1.ServicePort{{Name: PortName, Port: APIPort, TargetPort: intstr.FromString(PortName),
				Protocol: corev1.ProtocolTCP}},
		},
	}
}

// MountedNames reads which ConfigMap and backends Secret a Deployment's pod
// template mounts.
func MountedNames(d *appsv1.Deployment) (configMap, backendsSecret string) {
	return PodMounts(d.Spec.Template.Spec.Volumes)
}

// RunningImage is the glance-api image of a Deployment's pod template.
func RunningImage(d *appsv1.Deployment) string {
	for _, c := range d.Spec.Template.Spec.Containers {
		if c.Name == ContainerName {
			return c.Image
		}
	}
	return ""
}

// PodMounts reads which ConfigMap and backends Secret a pod spec mounts
// (the volumes named names.VolumeConfig and names.VolumeBackends), as the
// guide reads them with kubectl.
func PodMounts(volumes []corev1.Volume) (configMap, backendsSecret string) {
	for _, v := range volumes {
		switch {
		case v.Name == names.VolumeConfig && v.ConfigMap != nil:
			configMap = v.ConfigMap.Name
		case v.Name == names.VolumeBackends && v.Secret != nil:
			backendsSecret = v.Secret.SecretName
		}
	}
	return configMap, backendsSecret
}

// rolloutStrategy is the spec's, or by default one that keeps every
// serving pod until its replacement is ready.
func rolloutStrategy(spec api.GlanceSpec, maxUnavailable, maxSurge *intstr.IntOrString) appsv1.DeploymentStrategy {
	if d := spec.Deployment; d != nil && d.Strategy != nil {
		return *d.Strategy
	}
	return appsv1.DeploymentStrategy{
		Type:          appsv1.RollingUpdateDeploymentStrategyType,
		RollingUpdate: &appsv1.RollingUpdateDeployment{MaxUnavailable: maxUnavailable, MaxSurge: maxSurge},
	}
}

// Volume names of the writable directories of glance containers.
const (
	VolumeStaging = "staging"
	VolumeTasks   = "tasks"
	VolumeLock    = "lock"
	VolumeTmp     = "tmp"
)

// Sizes of the small writable directories: lock files, and what Python and
// the import flows write to /tmp besides the image data. A schema Job's
// staging and tasks areas hold nothing; they are mounted only because every
// glance program runs with the same mounts.
var (
	lockSize      = resource.MustParse("16Mi")
	tmpSize       = resource.MustParse("1Gi")
	jobUnusedSize = resource.MustParse("64Mi")
)

func emptyDir(name string, limit resource.Quantity) corev1.Volume {
	return BoundedEmptyDir(name, &limit)
}

// BoundedEmptyDir is an emptyDir with the limit given; none when nil.
func BoundedEmptyDir(name string, limit *resource.Quantity) corev1.Volume {
	return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: limit}}}
}

// APIStateVolumes are glance-api's writable directories. Staging holds what
// a client staged until the same pod imports it (worker_self_reference_url
// sends the import there), so each pod has its own: an emptyDir of the
// staging size, or a generic ephemeral volume, a claim made with the pod and
// deleted with it, which needs no child of the Glance and works with any
// number of replicas (one shared claim would need ReadWriteMany, and its
// files would outlive the pods whose imports they were for). The tasks area
// (the conversion plugins write a converted copy there) gets the staging
// size too. staging.unbounded leaves both without a limit (admission
// refuses it with a claim, which needs a size).
func APIStateVolumes(spec api.GlanceSpec) []corev1.Volume {
	limit := spec.Staging.SizeLimit
	staging := BoundedEmptyDir(VolumeStaging, limit)
	if c := spec.Staging.VolumeClaim; c != nil && limit != nil {
		size := *limit
		claim := corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: size}},
		}
		if c.StorageClassName != "" {
			class := c.StorageClassName
			claim.StorageClassName = &class
		}
		staging = corev1.Volume{Name: VolumeStaging, VolumeSource: corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{
			VolumeClaimTemplate: &corev1.PersistentVolumeClaimTemplate{Spec: claim}}}}
	}
	return []corev1.Volume{staging, BoundedEmptyDir(VolumeTasks, limit), emptyDir(VolumeLock, lockSize), emptyDir(VolumeTmp, tmpSize)}
}

// jobStateVolumes are a schema Job's: glance-manage stages nothing.
func jobStateVolumes() []corev1.Volume {
	return []corev1.Volume{emptyDir(VolumeStaging, jobUnusedSize), emptyDir(VolumeTasks, jobUnusedSize),
		emptyDir(VolumeLock, lockSize), emptyDir(VolumeTmp, tmpSize)}
}
