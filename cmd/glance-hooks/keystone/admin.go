package keystone

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/tokens"

	"github.com/c5c3/glance-hooks/hooks/contract/inivalue"
	"github.com/c5c3/glance-hooks/hooks/contract/registration"
)

// DefaultDomain is the domain keystone-manage bootstrap creates.
const DefaultDomain = "Default"

// Admin is who registers: a user with the admin role on a project.
type Admin struct {
	AuthURL, Username, Password, ProjectName string
	// UserDomain and ProjectDomain are names, or IDs when the *ID flag is set.
	UserDomain, ProjectDomain     string
	UserDomainID, ProjectDomainID bool
	// CACert is the PEM CA bundle an https AuthURL is checked against;
	// empty: the system's roots.
	CACert []byte
}

// AdminFromEnv reads the admin credentials. A missing key is an error
// naming it (never a value).
func AdminFromEnv(getenv func(string) string) (Admin, error) {
	var missing []string
	for _, k := range registration.RequiredAdminKeys {
		if getenv(k) == "" {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return Admin{}, refused("the admin credentials lack %s", strings.Join(missing, ", "))
	}
	a := Admin{AuthURL: getenv(registration.EnvAuthURL), Username: getenv(registration.EnvUsername), Password: getenv(registration.EnvPassword), ProjectName: getenv(registration.EnvProjectName)}
	a.UserDomain, a.UserDomainID = domain(getenv(registration.EnvUserDomainName), getenv(registration.EnvUserDomainID))
	a.ProjectDomain, a.ProjectDomainID = domain(getenv(registration.EnvProjectDomainName), getenv(registration.EnvProjectDomainID))
	if p := inivalue.URLProblems(a.AuthURL, "the password belongs in "+registration.EnvPassword); len(p) > 0 {
		return Admin{}, refused("%s %s", registration.EnvAuthURL, strings.Join(p, "; "))
	}
	ca, err := caCertFromEnv(getenv)
	if err != nil {
		return Admin{}, err
	}
	a.CACert = ca
	return a, nil
}

func domain(name, id string) (string, bool) {
	switch {
	case name != "":
		return name, false
	case id != "":
		return id, true
	}
	return DefaultDomain, false
}

// callTimeout bounds one HTTP call to Keystone.
const callTimeout = 30 * time.Second

// Client is an authenticated admin session on Keystone's identity API.
type Client struct {
	identity *gophercloud.ServiceClient
	authURL  string
	masker   masker
}

// Connect authenticates the admin with a password, scoped to its project.
// The identity API is then called at the auth URL itself, not at whatever
// the catalog lists: the URL the operator gave is the one known to be
// reachable from here. secrets are masked in every error (the admin's
// password is added).
func Connect(ctx context.Context, a Admin, secrets ...string) (*Client, error) {
	m := masker(append([]string{a.Password}, secrets...))
	provider, err := openstack.NewClient(a.AuthURL)
	if err != nil {
		return nil, refused("%s: %s", registration.EnvAuthURL, m.mask(err.Error()))
	}
	provider.HTTPClient = httpClient(a.CACert)
	opts := &tokens.AuthOptions{Username: a.Username, Password: a.Password, Scope: tokens.Scope{ProjectName: a.ProjectName}}
	if a.UserDomainID {
		opts.DomainID = a.UserDomain
	} else {
		opts.DomainName = a.UserDomain
	}
	if a.ProjectDomainID {
		opts.Scope.DomainID = a.ProjectDomain
	} else {
		opts.Scope.DomainName = a.ProjectDomain
	}
	if err := openstack.AuthenticateV3(ctx, provider, opts, gophercloud.EndpointOpts{}); err != nil {
		err = m.describe(fmt.Sprintf("authenticating as %q (project %q) at %s", a.Username, a.ProjectName, a.AuthURL), err)
		if IsRefused(err) {
			err = refused("%v: Keystone refused the admin credentials (check %s, %s, %s and the domains)", err, registration.EnvUsername, registration.EnvPassword, registration.EnvProjectName)
		}
		return nil, err
	}
	identity, err := openstack.NewIdentityV3(provider, gophercloud.EndpointOpts{})
	if err != nil {
		return nil, refused("%s: %s", registration.EnvAuthURL, m.mask(err.Error()))
	}
	return &Client{identity: identity, authURL: a.AuthURL, masker: m}, nil
}
