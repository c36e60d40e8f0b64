package observe

import (
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/excerpt"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/contract/problem"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
)

// Credentials is what the Glance's Secrets give the pods.
type Credentials struct {
	// Connection is the database URL and servicePassword the service user's
	// password, both as OS_DATABASE__CONNECTION and
	// OS_KEYSTONE_AUTHTOKEN__PASSWORD must hold them (osloEnvValue).
	Connection, ServicePassword string
	// Digest changes with the URL and the service user's password.
	Digest string
}

// relatedSecret is a Secret the Glance names, as far as it is read.
type relatedSecret struct {
	Metadata struct {
		UID types.UID `json:"uid"`
	} `json:"metadata"`
	Data map[string]string `json:"data"`
}

// SecretBytes reads one non-empty key of a Secret the Glance names, one
// the customize hook asked for: the database's and the service user's
// credentials, the database TLS files. problem names the Secret and the
// key, never a value.
func SecretBytes(related metacontroller.ObjectMap, name, key string) (value []byte, uid types.UID, problem string, err error) {
	sec, found, err := metacontroller.DecodeOne[relatedSecret](related, names.SecretsKey, name)
	switch {
	case err != nil:
		return nil, "", "", hook.Invalid("related %v", err)
	case !found:
		return nil, "", fmt.Sprintf("Secret %s does not exist", excerpt.Name(name)), nil
	}
	enc, ok := sec.Data[key]
	if !ok {
		return nil, "", fmt.Sprintf("Secret %s has no key %s", excerpt.Name(name), excerpt.Name(key)), nil
	}
	b, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		return nil, "", fmt.Sprintf("Secret %s key %s is not base64", excerpt.Name(name), excerpt.Name(key)), nil
	}
	if len(b) == 0 {
		return nil, "", fmt.Sprintf("Secret %s key %s is empty", excerpt.Name(name), excerpt.Name(key)), nil
	}
	return b, sec.Metadata.UID, "", nil
}

// ObservedCronJob is an observed CronJob as far as the hook reads it.
type ObservedCronJob struct {
	Status batchv1.CronJobStatus `json:"status"`
}

// ObservedPurge is the observed purge CronJob, or why it cannot be read:
// an error only where its status is reported.
type ObservedPurge struct {
	CronJob ObservedCronJob
	Found   bool
	Err     error
}

// ObservedEvents are the Glance's observed Events: listed by name, and
// held to be returned as last applied.
type ObservedEvents struct {
	Listed  []ListedChild
	Applied LastApplied
}

// Seen reports whether an Event of the name is observed.
func (e ObservedEvents) Seen(name string) bool {
	i, found := slices.BinarySearchFunc(e.Listed, name, func(c ListedChild, name string) int { return strings.Compare(c.Name, name) })
	return found && e.Listed[i].Present
}

// ObservedRouteStatus is what the hook reads of an observed HTTPRoute: each
// parent's conditions, as the gateway's controller reports them.
type ObservedRouteStatus struct {
	Status struct {
		Parents []struct {
			ParentRef      RouteParentRef     `json:"parentRef"`
			ControllerName string             `json:"controllerName"`
			Conditions     []metav1.Condition `json:"conditions"`
		} `json:"parents"`
	} `json:"status"`
}

// ObservedRoute is the observed HTTPRoute of the Glance as far as the hook
// reads it. managed says whether the Glance's CompositeController manages
// HTTPRoutes (the request lists the type among its children): without the
// Gateway API's CRDs it cannot. err says the route's status cannot be read.
type ObservedRoute struct {
	Managed, Found bool
	Status         ObservedRouteStatus
	Err            error
}

// Observed is a /sync/glance request decoded once: the Glance, its attached
// stores as their backends and store Secrets show them, the credentials,
// the schema Jobs and their pods, and the running Deployment with the
// backends.conf it mounts and, during a rollout, its pods. The decisions
// (decide.go), render and report read this value only: every child and
// related object is decoded here, once, into a typed field, and nothing
// after observe reads the request's maps.
type Observed struct {
	Glance *api.Glance
	Spec   api.GlanceSpec
	Now    time.Time
	// Stores are the attached backends, sorted by store id, each
	// evaluated against its store Secret.
	Stores []*model.Store
	// Deployment is the running Deployment, nil before there is one;
	// running the backends.conf its pods mount, "" when there is none.
	Deployment *appsv1.Deployment
	Running    string
	// Pods are the Deployment's pods and the schema Jobs'.
	Pods ObservedPods
	// HasConfig says a config ConfigMap was ever rendered.
	HasConfig bool
	Creds     CredentialsRead
	Jobs      []ObservedJob
	// Mounted are what the running Deployment and the unfinished schema
	// Jobs mount: the history keeps them (sync.go).
	Mounted mountedNamesList
	// Configs and backendsSecrets are the observed hashed ConfigMaps and
	// backends Secrets, for the history.
	Configs, BackendsSecrets []HashedChild
	// Policy is spec.policyOverrides' rules, or why they cannot be read.
	Policy    map[string]string
	PolicyErr error
	// Applied are the children, returned as last applied when nothing is
	// re-rendered, or kept while a pod may mount them; nothing reads
	// their content (lastapplied.go).
	Applied LastApplied
	// Route, purge and events are the observed HTTPRoute, purge CronJob
	// and Events; autoscalerObserved says an autoscaler is observed.
	Route              ObservedRoute
	Purge              ObservedPurge
	Events             ObservedEvents
	AutoscalerObserved bool
	// AllowedEgress is the egress of the observed glance-api
	// NetworkPolicy, by rule key (networkpolicy.go).
	AllowedEgress map[string]bool
	// Gates are the conditions of the features' gates whose field is set.
	Gates []hook.Condition
	// Invalid are the rules of hooks/contract/rules the Glance breaks,
	// the same admission refuses it for: nothing new is rendered from it.
	Invalid problem.List
}

// CredentialsRead is what the database and service-user Secrets give: the
// credentials when both are complete, and the two conditions.
type CredentialsRead struct {
	Creds     *Credentials
	DBProblem *hook.Condition
	User      hook.Condition
}

// mountedNamesList are the hashed ConfigMaps and backends Secrets pods
// mount.
type mountedNamesList struct{ ConfigMaps, BackendsSecrets []string }

// ObservedPods are the related pods, each with its controller: the
// Deployment's (of its ReplicaSets, named "<deployment>-<pod-template-hash>":
// the current one and, during a rollout, the older ones) and the schema
// Jobs', by Job name. One pass over the pods, whichever the sync needs.
type ObservedPods struct {
	Rollout []corev1.Pod
	ByJob   map[string][]corev1.Pod
}

type RouteParentRef struct {
	Name        string `json:"name"`
	Namespace   string `json:"namespace,omitempty"`
	SectionName string `json:"sectionName,omitempty"`
}

// Action is what a schema Job does.
type Action string

const (
	// ActionSync runs glance-manage db sync, then loads the metadata
	// definitions: first install, and a new image of the same release.
	ActionSync Action = "sync"
	// The three steps of a release upgrade; contract also loads the
	// metadata definitions of the new release.
	ActionExpand   Action = "expand"
	ActionMigrate  Action = "migrate"
	ActionContract Action = "contract"
)

// JobState is what an observed Job has come to.
type JobState int

const (
	JobRunning JobState = iota
	JobSucceeded
	JobFailed
)

// SchemaJob is one schema Job: what it does with which image.
type SchemaJob struct {
	Action Action
	Image  string
}

// ObservedJob is a schema Job Metacontroller reported.
type ObservedJob struct {
	Name  string
	Job   SchemaJob
	State JobState
}
