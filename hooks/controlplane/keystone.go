package controlplane

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/contenthash"
	"github.com/c5c3/glance-hooks/hooks/contract/excerpt"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/inivalue"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	reg "github.com/c5c3/glance-hooks/hooks/contract/registration"
)

// The registration container's name; its pod failure policy names it.
const registerContainer = "keystone"

// registration is what the sync hook knows about the ControlPlane's
// registration in Keystone.
type registration struct {
	cp       *api.ControlPlane
	settings api.KeystoneRegistration
	user     api.ServiceUserSpec
	// admin and password are the Secrets' values, nil while they are not
	// usable (the condition says why).
	admin    map[string]string
	password string
}

// readAdmin reads the admin credentials Secret from the related objects;
// waiting is the condition while it is not usable.
func readAdmin(cp *api.ControlPlane, related metacontroller.ObjectMap) (*registration, *hook.Condition, error) {
	glanceSpec := GlanceSpec(cp)
	r := &registration{cp: cp, settings: cp.Spec.Services.Glance.Registration(cp.Name, cp.Namespace), user: *glanceSpec.ServiceUser}
	adminName := r.settings.AdminCredentialsSecretRef.Name
	admin, found, err := hook.SecretData(related, adminName)
	if err != nil {
		return nil, nil, err
	}
	if !found {
		return nil, waiting(ReasonWaitingForAdminCredentials, "Secret %s does not exist: create it from the admin exports "+
			"(env | grep '^OS_' | kubectl create secret generic %s -n %s --from-env-file=/dev/stdin); it needs %s",
			excerpt.Name(adminName), adminName, cp.Namespace, strings.Join(reg.RequiredAdminKeys, ", ")), nil
	}
	var missing []string
	for _, k := range reg.RequiredAdminKeys {
		if admin[k] == "" {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return nil, waiting(ReasonWaitingForAdminCredentials, "Secret %s lacks %s (or they are empty)", excerpt.Name(adminName), strings.Join(missing, ", ")), nil
	}
	if p := inivalue.URLProblems(admin[reg.EnvAuthURL], "the password belongs in "+reg.EnvPassword); len(p) > 0 {
		return nil, waiting(ReasonWaitingForAdminCredentials, "key %s of Secret %s: %s", reg.EnvAuthURL, excerpt.Name(adminName), strings.Join(p, "; ")), nil
	}
	r.admin = admin
	return r, nil, nil
}

// readPassword reads the service user's password from its Secret among the
// related objects; waiting is the condition while it is not usable. The
// Secret is the operator's to make (see the README: a Job making it would
// need create on every Secret name of the namespace).
func (r *registration) readPassword(related metacontroller.ObjectMap) (*hook.Condition, error) {
	ref, cp := r.user.SecretRef, r.cp
	userSecret, found, err := hook.SecretData(related, ref.Name)
	if err != nil {
		return nil, err
	}
	howTo := fmt.Sprintf("read -rs PW; printf '%%s' \"$PW\" | kubectl create secret generic %s -n %s --from-file=%s=/dev/stdin", ref.Name, cp.Namespace, ref.Key)
	switch {
	case !found:
		return waiting(ReasonWaitingForServiceUserPassword, "Secret %s does not exist: the service user's password is yours to choose; create it without putting it on a command line: %s",
			excerpt.Name(ref.Name), howTo), nil
	case userSecret[ref.Key] == "":
		return waiting(ReasonWaitingForServiceUserPassword, "Secret %s has no key %s, or it is empty", excerpt.Name(ref.Name), excerpt.Name(ref.Key)), nil
	case strings.Contains(userSecret[ref.Key], "$"):
		return waiting(ReasonWaitingForServiceUserPassword, "key %s of Secret %s holds a '$': glance-api reads the password through oslo.config, "+
			"which reads '$' as the start of a variable, so it would authenticate with another password; choose one without '$'",
			excerpt.Name(ref.Key), excerpt.Name(ref.Name)), nil
	}
	r.password = userSecret[ref.Key]
	return nil, nil
}

func waiting(reason, format string, args ...any) *hook.Condition {
	return &hook.Condition{Type: CondKeystoneRegistered, Reason: reason, Message: fmt.Sprintf(format, args...)}
}

// spec is what the registration Job runs.
func (r *registration) spec(deregister bool) reg.Spec {
	return reg.Spec{
		Deregister: deregister,
		Owner:      r.cp.Namespace + "/" + r.cp.Name,
		User:       r.user.Username, UserDomain: r.user.UserDomainName,
		Project: r.user.ProjectName, ProjectDomain: r.user.ProjectDomainName,
		Role:        api.DefaultServiceRole,
		ServiceName: api.DefaultCatalogServiceName, ServiceType: api.CatalogServiceType,
		Region:    r.settings.Region,
		PublicURL: r.settings.PublicURL, InternalURL: r.settings.InternalURL,
		PasswordSecret: r.user.SecretRef.Name,
	}
}

// job is the registration (or deregistration) Job. Its name ends in a
// hash of everything it runs with: its pod template and the values of the
// Secrets it reads. A Job's template cannot change, and a finished Job
// does not run again; a new name for new inputs does both, so a rotated
// password, new admin credentials or a new endpoint URL run it again and
// the same inputs never do. The Secret values enter as an HMAC keyed by
// the admin's password: the name is public, and only someone holding the
// admin password (who can do anything in Keystone anyway) could test
// guesses of the service password against it.
func (r *registration) job(jobImage string, deregister bool) *jobChild {
	s := r.spec(deregister)
	component := names.ComponentRegistration
	prefix := names.RegistrationJobPrefix(r.cp.Name)
	if deregister {
		component, prefix = names.ComponentDeregistration, names.DeregistrationJobPrefix(r.cp.Name)
	}
	labels := registrationLabels(r.cp.Name, component)
	template := r.podTemplate(labels, corev1.Container{
		Name:  registerContainer,
		Image: jobImage,
		Args:  s.Args(),
		Env:   r.env(deregister),
	})
	raw, _ := json.Marshal(template)
	data := map[string]string{"namespace": r.cp.Namespace, "template": string(raw), reg.EnvServiceUserPassword: r.password}
	for k, v := range r.admin {
		data["admin/"+k] = v
	}
	backoff, deadline := int32(4), int64(600)
	return &jobChild{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: names.JobName(prefix, "-"+contenthash.Keyed(r.admin[reg.EnvPassword], data)), Namespace: r.cp.Namespace, Labels: labels},
		Spec: batchv1.JobSpec{
			BackoffLimit:          &backoff,
			ActiveDeadlineSeconds: &deadline,
			PodFailurePolicy: &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{
				{Action: batchv1.PodFailurePolicyActionFailJob, OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{
					ContainerName: ptr(registerContainer), Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{2, reg.ExitRefused}}},
				{Action: batchv1.PodFailurePolicyActionIgnore, OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{
					{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue}}},
			}},
			Template: template,
		},
	}
}

// env reads the admin's exports and, to register, the service user's
// password from their Secrets.
func (r *registration) env(deregister bool) []corev1.EnvVar {
	adminRef := r.settings.AdminCredentialsSecretRef.Name
	env := []corev1.EnvVar{}
	for _, k := range reg.RequiredAdminKeys {
		env = append(env, secretEnv(k, adminRef, k, false))
	}
	for _, k := range reg.OptionalAdminKeys {
		env = append(env, secretEnv(k, adminRef, k, true))
	}
	if !deregister {
		env = append(env, secretEnv(reg.EnvServiceUserPassword, r.user.SecretRef.Name, r.user.SecretRef.Key, false))
	}
	return env
}

// podTemplate runs c once, unprivileged, with no Kubernetes API token
// mounted.
func (r *registration) podTemplate(labels map[string]string, c corev1.Container) corev1.PodTemplateSpec {
	nonRoot, uid, no, yes := true, int64(65532), false, true
	c.ImagePullPolicy = corev1.PullIfNotPresent
	c.TerminationMessagePolicy = corev1.TerminationMessageFallbackToLogsOnError
	c.SecurityContext = &corev1.SecurityContext{AllowPrivilegeEscalation: &no, ReadOnlyRootFilesystem: &yes, RunAsNonRoot: &nonRoot,
		Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}}
	c.Resources = registrationResources()
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: labels},
		Spec: corev1.PodSpec{
			RestartPolicy:                corev1.RestartPolicyNever,
			ServiceAccountName:           names.RegistrationServiceAccount(r.cp.Name),
			AutomountServiceAccountToken: &no,
			SecurityContext: &corev1.PodSecurityContext{RunAsNonRoot: &nonRoot, RunAsUser: &uid, RunAsGroup: &uid,
				SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
			Containers: []corev1.Container{c},
		},
	}
}

func ptr[T any](v T) *T { return &v }

// jobChild is a Job as the hook returns it: without status.
type jobChild struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              batchv1.JobSpec `json:"spec"`
}

func secretEnv(name, secret, key string, optional bool) corev1.EnvVar {
	sel := &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: secret}, Key: key}
	if optional {
		sel.Optional = &optional
	}
	return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: sel}}
}

func registrationLabels(cp, component string) map[string]string {
	return map[string]string{names.LabelControlPlane: cp, names.LabelManagedBy: names.ManagedBy,
		names.LabelName: registrationAppName, names.LabelComponent: component}
}

// serviceAccount is the Jobs' own identity. It needs no Kubernetes API
// access at all (the kubelet hands the Secrets to the container), so no
// Role is bound to it and no token is mounted; being its own account, it
// is not the namespace's default one, to which others may grant rights.
func serviceAccount(cp *api.ControlPlane) *corev1.ServiceAccount {
	no := false
	return &corev1.ServiceAccount{
		TypeMeta:                     metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"},
		ObjectMeta:                   metav1.ObjectMeta{Name: names.RegistrationServiceAccount(cp.Name), Namespace: cp.Namespace, Labels: registrationLabels(cp.Name, names.ComponentRegistration)},
		AutomountServiceAccountToken: &no,
	}
}

// jobState reads an observed Job: finished (complete or failed) and, for a
// failure, the message its last failed pod left.
type jobState struct {
	found, complete, failed bool
	// reason is the Job's Failed condition's reason (BackoffLimitExceeded,
	// DeadlineExceeded, PodFailurePolicy).
	reason string
	// message is the last failed attempt's termination message, if any.
	message string
}

// why says why a failed Job failed: its last attempt's message, else the
// Job controller's reason.
func (st jobState) why() string {
	switch {
	case st.message != "" && st.reason != "":
		return st.reason + ", " + st.message
	case st.message != "":
		return st.message
	case st.reason != "":
		return st.reason
	}
	return "no reason recorded"
}

func observeJob(name string, children, related metacontroller.ObjectMap) (jobState, error) {
	job, found, err := metacontroller.DecodeOne[batchv1.Job](children, names.JobsKey, name)
	if err != nil {
		return jobState{}, hook.Invalid("observed %v", err)
	}
	if !found {
		return jobState{}, nil
	}
	st := jobState{found: true}
	for _, c := range job.Status.Conditions {
		if c.Status != corev1.ConditionTrue {
			continue
		}
		switch c.Type {
		case batchv1.JobComplete:
			st.complete = true
		case batchv1.JobFailed:
			st.failed = true
			st.reason = c.Reason
		}
	}
	pods, err := metacontroller.Decode(related, names.PodsKey, func(p *corev1.Pod) bool { return p.Labels[names.LabelJobName] == name })
	if err != nil {
		return jobState{}, hook.Invalid("related %v", err)
	}
	sort.SliceStable(pods, func(i, j int) bool {
		return pods[i].CreationTimestamp.Before(&pods[j].CreationTimestamp)
	})
	for _, p := range pods {
		for _, cs := range p.Status.ContainerStatuses {
			if cs.Name == registerContainer && cs.State.Terminated != nil && cs.State.Terminated.ExitCode != 0 {
				st.message = terminationMessage(cs.State.Terminated)
			}
		}
	}
	return st, nil
}

// maxAttemptMessage bounds how much of a pod's termination message the
// status repeats.
const maxAttemptMessage = 1024

// terminationMessage is the last line the container wrote (the command
// prints its error last; the kubelet keeps the log's tail as the message),
// without the command's prefix, escaped and cut.
func terminationMessage(t *corev1.ContainerStateTerminated) string {
	lines := strings.Split(strings.TrimSpace(t.Message), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	last = strings.TrimPrefix(last, "glance-hooks "+reg.Command+" "+reg.CommandRegister+": ")
	last = strings.TrimPrefix(last, "glance-hooks "+reg.Command+" "+reg.CommandDeregister+": ")
	if last == "" {
		return fmt.Sprintf("exit code %d", t.ExitCode)
	}
	return fmt.Sprintf("exit code %d: %s", t.ExitCode, excerpt.Quote(last, maxAttemptMessage))
}

// registrationResources are small: the command makes a few HTTP calls.
func registrationResources() corev1.ResourceRequirements {
	return corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("32Mi")},
		Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("64Mi")},
	}
}

// registrationAppName is the app.kubernetes.io/name of the registration
// objects: they run glance-hooks.
const registrationAppName = "glance-hooks"
