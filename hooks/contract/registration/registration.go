// Package registration is what the ControlPlane hook and the
// `glance-hooks keystone` command agree on: the command's subcommands and
// flags (the hook renders them as a Job's args, the command parses them),
// the environment variables the Job's container reads its secrets from,
// and what its exit codes mean. Defined once, a renamed flag cannot leave
// the rendered Jobs behind.
package registration

// The subcommands of `glance-hooks keystone`.
const (
	Command           = "keystone"
	CommandRegister   = "register"
	CommandDeregister = "deregister"
)

// Environment variables of the registration container. The admin's come
// from the admin credentials Secret, whose keys are named like an
// operator's admin exports (what the openstack CLI reads), so the Secret
// can be made straight from them.
const (
	EnvAuthURL           = "OS_AUTH_URL"
	EnvUsername          = "OS_USERNAME"
	EnvPassword          = "OS_PASSWORD"
	EnvProjectName       = "OS_PROJECT_NAME"
	EnvUserDomainName    = "OS_USER_DOMAIN_NAME"
	EnvUserDomainID      = "OS_USER_DOMAIN_ID"
	EnvProjectDomainName = "OS_PROJECT_DOMAIN_NAME"
	EnvProjectDomainID   = "OS_PROJECT_DOMAIN_ID"
	// EnvCACert is the CA bundle of an https Keystone: a PEM file's path
	// or the PEM itself.
	EnvCACert = "OS_CACERT"

	// EnvServiceUserPassword carries the service user's password, from the
	// Secret the Glance reads it from.
	EnvServiceUserPassword = "SERVICE_USER_PASSWORD"
)

// RequiredAdminKeys must be in the admin credentials Secret, non-empty.
var RequiredAdminKeys = []string{EnvAuthURL, EnvUsername, EnvPassword, EnvProjectName}

// OptionalAdminKeys may be: the domains default to "Default", and a
// *_NAME wins over its *_ID; OS_CACERT names the CA of an https Keystone
// (the image's CA roots otherwise).
var OptionalAdminKeys = []string{EnvUserDomainName, EnvUserDomainID, EnvProjectDomainName, EnvProjectDomainID, EnvCACert}

// ExitRefused is the exit code of a failure running again cannot fix:
// Keystone refused the admin credentials or the admin's rights, or the
// catalog holds what registration will not overwrite. The Job's pod
// failure policy fails the Job on it at once, without retries; other
// failures (Keystone unreachable, a 5xx) are retried.
const ExitRefused = 3

// Flags of register and deregister.
const (
	FlagOwner         = "owner"
	FlagUser          = "user"
	FlagUserDomain    = "user-domain"
	FlagProject       = "project"
	FlagProjectDomain = "project-domain"
	FlagRole          = "role"
	FlagServiceName   = "service-name"
	FlagServiceType   = "service-type"
	FlagRegion        = "region"
	FlagPublicURL     = "public-url"
	FlagInternalURL   = "internal-url"
	FlagPasswordFrom  = "password-secret"
)

// Spec is what one registration Job does: register (or, when
// Deregister is set, deregister) the image service of Owner.
type Spec struct {
	Deregister bool
	// Owner is "<namespace>/<controlplane>".
	Owner                  string
	User, UserDomain       string
	Project, ProjectDomain string
	Role                   string
	ServiceName            string
	ServiceType            string
	Region                 string
	PublicURL, InternalURL string
	// PasswordSecret names the Secret the password comes from, for the
	// command's messages only.
	PasswordSecret string
}

// Args are the container args (after the image's entrypoint) that run s.
func (s Spec) Args() []string {
	flag := func(name, value string) string { return "--" + name + "=" + value }
	if s.Deregister {
		return []string{Command, CommandDeregister, flag(FlagOwner, s.Owner),
			flag(FlagServiceName, s.ServiceName), flag(FlagServiceType, s.ServiceType)}
	}
	return []string{Command, CommandRegister,
		flag(FlagOwner, s.Owner),
		flag(FlagUser, s.User), flag(FlagUserDomain, s.UserDomain),
		flag(FlagProject, s.Project), flag(FlagProjectDomain, s.ProjectDomain),
		flag(FlagRole, s.Role),
		flag(FlagServiceName, s.ServiceName), flag(FlagServiceType, s.ServiceType),
		flag(FlagRegion, s.Region),
		flag(FlagPublicURL, s.PublicURL), flag(FlagInternalURL, s.InternalURL),
		flag(FlagPasswordFrom, s.PasswordSecret),
	}
}
