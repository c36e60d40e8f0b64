package render

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
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
	// HealthPath is what the probes ask: the paste pipeline's healthcheck.
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
	// EveryPod are the features' changes to every pod template.
	EveryPod []func(*corev1.PodSpec, api.GlanceSpec)
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
// volumes they mount, and where they may run.
func glancePod(m Mounts, state []corev1.Volume, placement api.DeploymentSpec, containers ...corev1.Container) corev1.PodSpec {
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
		NodeSelector:      placement.NodeSelector,
		Affinity:          placement.Affinity,
		Tolerations:       placement.Tolerations,
		PriorityClassName: placement.PriorityClassName,
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
	// /healthcheck is the paste pipeline's healthcheck filter, ahead of
	// authtoken: it answers without a token, a database or Keystone, in
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
	pod := glancePod(in.Mounts, APIStateVolumes(spec), api.DeploymentSpec{}, container)
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
