package api

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/resource"
)

// Conventional defaults for what a Glance (or the guide's short ControlPlane)
// leaves out. They are the names the guide's standalone Glance uses, so a
// ControlPlane and a hand-written Glance point at the same infrastructure.
const (
	DefaultOpenStackRelease = "2025.2"
	DefaultImageRepository  = "ghcr.io/c5c3/glance"
	// DefaultMetadefsPath is where the image (glance installed with the
	// prefix /var/lib/openstack) keeps the metadata definitions.
	DefaultMetadefsPath = "/var/lib/openstack/etc/glance/metadefs"
	DefaultAPIProcesses = int32(2)
	DefaultAPIThreads   = int32(4)
	// DefaultTerminationGraceSeconds is the Kubernetes default, kept
	// explicit: the uWSGI master's drain is sized against it.
	DefaultTerminationGraceSeconds = int64(30)
	// DefaultAdminCredentialsSecret holds the admin exports a ControlPlane
	// registers its Glance in Keystone with.
	DefaultAdminCredentialsSecret = "keystone-admin"
	// DefaultRegion is the region keystone-manage bootstrap and devstack use.
	DefaultRegion = "RegionOne"
	// DefaultServiceRole is the role the guide grants the service user.
	DefaultServiceRole = "service"
	// DefaultCatalogServiceName and CatalogServiceType are the guide's
	// `openstack service create --name glance image`.
	DefaultCatalogServiceName = "glance"
	CatalogServiceType        = "image"
	// GlanceAPIPort is the port glance-api and its Service listen on.
	GlanceAPIPort = 9292
)

// Sizes of what a Glance leaves out. The staging area holds a whole image
// per import in progress on the pod.
var (
	DefaultStagingSize = resource.MustParse("10Gi")
)

// MaxVolumeSize is the largest size limit of a volume the pods get
// (spec.imageCache.sizeLimit, spec.staging.sizeLimit): 64Ti, more than a
// node's disk holds today, and far below where the number stops fitting
// the config's integer options (8Ei is clamped, 1e19 and 1e400 read as 0).
var MaxVolumeSize = resource.MustParse("64Ti")

// WithDefaults returns the registration settings with every unset field
// filled in for ControlPlane cp in namespace; k may be nil.
func (k *KeystoneRegistration) WithDefaults(cp, namespace string) KeystoneRegistration {
	out := KeystoneRegistration{}
	if k != nil {
		out = *k
	}
	if out.AdminCredentialsSecretRef == nil || out.AdminCredentialsSecretRef.Name == "" {
		out.AdminCredentialsSecretRef = &LocalObjectReference{Name: DefaultAdminCredentialsSecret}
	}
	if out.Region == "" {
		out.Region = DefaultRegion
	}
	// The projected Glance's Service, <cp>-glance, as the guide's probe
	// reaches it.
	url := fmt.Sprintf("http://%s-glance.%s.svc.cluster.local:%d", cp, namespace, GlanceAPIPort)
	if out.PublicURL == "" {
		out.PublicURL = url
	}
	if out.InternalURL == "" {
		out.InternalURL = url
	}
	if out.OnDelete == "" {
		out.OnDelete = OnDeleteDeregister
	}
	return out
}
