package keystone

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/endpoints"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/services"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/tokens"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"
)

// ServiceUser is the user a Glance authenticates tokens with.
type ServiceUser struct {
	Name, Domain           string
	Project, ProjectDomain string
	Role                   string
	Password               string
	// PasswordSecret names where the password comes from, for messages.
	PasswordSecret string
}

// Endpoint is one catalog entry of the service.
type Endpoint struct {
	Interface string // public, internal or admin
	URL       string
}

// Registration is what a ControlPlane registers for its Glance.
type Registration struct {
	// Owner marks what this registration creates: "<namespace>/<name>".
	Owner       string
	User        ServiceUser
	ServiceName string
	ServiceType string
	Region      string
	Endpoints   []Endpoint
}

// Report lists, in order, what a run changed in Keystone; empty when
// Keystone already matched.
type Report []string

func (r *Report) add(format string, args ...any) { *r = append(*r, fmt.Sprintf(format, args...)) }

// Register makes Keystone match reg, changing only what differs:
//
//   - the project and role are created when missing;
//   - the user is created (marked as the owner's) when missing; one the
//     owner created gets the password when it no longer authenticates (a
//     rotation); one made by someone else is taken over (marked) only when
//     the password already authenticates it, and refused otherwise: its
//     password may be in use elsewhere, and resetting it would lock those
//     users out and revoke their tokens;
//   - the role is granted on the project;
//   - the service is created (marked) when there is none of that name and
//     type; an existing one is used as it is;
//   - per interface, an endpoint of the service in the region gets the URL
//     (created marked, or its URL updated); endpoints of the service that
//     the owner created and that are no longer wanted (another region or
//     interface) are removed.
//
// Last it proves the result: the user gets a token scoped to its project
// that carries the role.
func (c *Client) Register(ctx context.Context, reg Registration) (Report, error) {
	c.masker = append(c.masker, reg.User.Password)
	var r Report
	u := reg.User
	userDomain, err := c.domainID(ctx, u.Domain)
	if err != nil {
		return r, err
	}
	projectDomain := userDomain
	if u.ProjectDomain != u.Domain {
		if projectDomain, err = c.domainID(ctx, u.ProjectDomain); err != nil {
			return r, err
		}
	}
	projectID, err := c.ensureProject(ctx, u.Project, projectDomain, &r)
	if err != nil {
		return r, err
	}
	roleID, err := c.ensureRole(ctx, u.Role, &r)
	if err != nil {
		return r, err
	}
	userID, err := c.ensureUser(ctx, reg.Owner, u, userHome{domainID: userDomain, projectID: projectID}, &r)
	if err != nil {
		return r, err
	}
	if err := c.ensureAssignment(ctx, grant{userID: userID, projectID: projectID, roleID: roleID, user: u}, &r); err != nil {
		return r, err
	}
	if err := c.ensureRegion(ctx, reg.Region, &r); err != nil {
		return r, err
	}
	svc, err := c.ensureService(ctx, reg, &r)
	if err != nil {
		return r, err
	}
	if err := c.ensureEndpoints(ctx, reg, svc, &r); err != nil {
		return r, err
	}
	return r, c.verifyUser(ctx, u)
}

// userHome is where a service user is made: its domain and its default
// project, as Keystone ids.
type userHome struct {
	domainID, projectID string
}

// ensureUser is Register's user step; it returns the user's id.
func (c *Client) ensureUser(ctx context.Context, owner string, u ServiceUser, home userHome, r *Report) (string, error) {
	pages, err := users.List(c.identity, users.ListOpts{Name: u.Name, DomainID: home.domainID}).AllPages(ctx)
	if err != nil {
		return "", c.masker.describe(fmt.Sprintf("looking up user %q", u.Name), err)
	}
	list, err := users.ExtractUsers(pages)
	if err != nil {
		return "", c.masker.describe(fmt.Sprintf("reading user %q", u.Name), err)
	}
	if len(list) == 0 {
		enabled := true
		created, err := users.Create(ctx, c.identity, users.CreateOpts{Name: u.Name, DomainID: home.domainID, Password: u.Password,
			DefaultProjectID: home.projectID, Enabled: &enabled, Extra: map[string]any{OwnerAttribute: owner}}).Extract()
		if err != nil {
			return "", c.masker.describe(fmt.Sprintf("creating user %q", u.Name), err)
		}
		r.add("created user %q in domain %q", u.Name, u.Domain)
		return created.ID, nil
	}
	user := list[0]
	works, err := c.passwordWorks(ctx, user.ID, u.Password)
	if err != nil {
		return "", err
	}
	userOwner, _ := user.Extra[OwnerAttribute].(string)
	switch {
	case works && userOwner == "":
		// The Secret holds this user's password, so it speaks for the user:
		// mark it, so a later rotation may change the password.
		if err := users.Update(ctx, c.identity, user.ID, users.UpdateOpts{Extra: map[string]any{OwnerAttribute: owner}}).Err; err != nil {
			return "", c.masker.describe(fmt.Sprintf("marking user %q", u.Name), err)
		}
		r.add("took over user %q: the password in Secret %q authenticates it", u.Name, u.PasswordSecret)
	case works:
	case userOwner == owner:
		enabled := true
		if err := users.Update(ctx, c.identity, user.ID, users.UpdateOpts{Password: u.Password, Enabled: &enabled}).Err; err != nil {
			return "", c.masker.describe(fmt.Sprintf("setting the password of user %q", u.Name), err)
		}
		r.add("set the password of user %q from Secret %q", u.Name, u.PasswordSecret)
	default:
		by := "by hand or by another tool"
		if userOwner != "" {
			by = fmt.Sprintf("by ControlPlane %s", userOwner)
		}
		return "", refused("user %q exists in domain %q, made %s, and the password in Secret %q does not authenticate it: "+
			"it is not reset, since that password may be in use elsewhere and a reset would lock those users out. "+
			"Put the user's current password into the Secret (the ControlPlane then takes the user over and can rotate it), or delete the user",
			u.Name, u.Domain, by, u.PasswordSecret)
	}
	return user.ID, nil
}

// passwordWorks asks Keystone for an unscoped token with the password.
func (c *Client) passwordWorks(ctx context.Context, userID, password string) (bool, error) {
	err := tokens.Create(ctx, c.identity, &tokens.AuthOptions{UserID: userID, Password: password}).Err
	switch {
	case err == nil:
		return true, nil
	case gophercloud.ResponseCodeIs(err, 401):
		return false, nil
	}
	return false, c.masker.describe("checking the service user's password", err)
}

// ensureService returns the service to register endpoints on.
func (c *Client) ensureService(ctx context.Context, reg Registration, r *Report) (*services.Service, error) {
	svc, err := c.findService(ctx, reg.ServiceName, reg.ServiceType)
	if err != nil || svc != nil {
		return svc, err
	}
	enabled := true
	svc, err = services.Create(ctx, c.identity, services.CreateOpts{Name: reg.ServiceName, Type: reg.ServiceType, Enabled: &enabled,
		Extra: map[string]any{OwnerAttribute: reg.Owner}}).Extract()
	if err != nil {
		return nil, c.masker.describe(fmt.Sprintf("creating service %q of type %q", reg.ServiceName, reg.ServiceType), err)
	}
	r.add("created service %q of type %q", reg.ServiceName, reg.ServiceType)
	return svc, nil
}

// ensureEndpoints gives the service exactly the wanted endpoints in the
// region, and removes the owner's endpoints that are no longer wanted.
func (c *Client) ensureEndpoints(ctx context.Context, reg Registration, svc *services.Service, r *Report) error {
	existing, err := c.listEndpoints(ctx, svc.ID)
	if err != nil {
		return err
	}
	wanted := map[string]string{}
	for _, e := range reg.Endpoints {
		wanted[e.Interface] = e.URL
	}
	ifaces := make([]string, 0, len(wanted))
	for i := range wanted {
		ifaces = append(ifaces, i)
	}
	sort.Strings(ifaces)
	used := map[string]bool{}
	for _, iface := range ifaces {
		match := endpointsOf(existing, iface, reg.Region)
		switch len(match) {
		case 0:
			created, err := endpoints.Create(ctx, c.identity, ownedEndpoint{endpoints.CreateOpts{Availability: gophercloud.Availability(iface),
				Region: reg.Region, URL: wanted[iface], ServiceID: svc.ID}, reg.Owner}).Extract()
			if err != nil {
				return c.masker.describe(fmt.Sprintf("creating the %s endpoint", iface), err)
			}
			used[created.ID] = true
			r.add("created the %s endpoint of service %q in region %q: %s", iface, reg.ServiceName, reg.Region, wanted[iface])
		case 1:
			used[match[0].ID] = true
			if match[0].URL == wanted[iface] {
				continue
			}
			if err := endpoints.Update(ctx, c.identity, match[0].ID, endpoints.UpdateOpts{URL: wanted[iface]}).Err; err != nil {
				return c.masker.describe(fmt.Sprintf("updating the %s endpoint", iface), err)
			}
			r.add("changed the %s endpoint of service %q in region %q to %s", iface, reg.ServiceName, reg.Region, wanted[iface])
		default:
			ids := make([]string, len(match))
			for i, e := range match {
				ids[i] = e.ID
			}
			return refused("service %q has %d %s endpoints in region %q (%s): remove all but one, clients would pick any",
				reg.ServiceName, len(match), iface, reg.Region, strings.Join(ids, ", "))
		}
	}
	return c.removeUnwanted(ctx, reg, existing, used, r)
}

// endpointsOf are the endpoints of an interface in the region.
func endpointsOf(existing []endpoint, iface, region string) []endpoint {
	var match []endpoint
	for _, e := range existing {
		if string(e.Availability) == iface && regionOf(e) == region {
			match = append(match, e)
		}
	}
	return match
}

// removeUnwanted removes the owner's endpoints not used for a wanted
// interface; one already gone is fine. Endpoints the owner did not create
// stay.
func (c *Client) removeUnwanted(ctx context.Context, reg Registration, existing []endpoint, used map[string]bool, r *Report) error {
	for _, e := range existing {
		if used[e.ID] || e.Owner != reg.Owner {
			continue
		}
		if err := endpoints.Delete(ctx, c.identity, e.ID).ExtractErr(); err != nil && !gophercloud.ResponseCodeIs(err, 404) {
			return c.masker.describe(fmt.Sprintf("removing the %s endpoint in region %q", e.Availability, regionOf(e)), err)
		}
		r.add("removed the %s endpoint of service %q in region %q, no longer wanted", e.Availability, reg.ServiceName, regionOf(e))
	}
	return nil
}

// regionOf reads an endpoint's region (region_id since identity v3.2).
func regionOf(e endpoint) string {
	if e.RegionID != "" {
		return e.RegionID
	}
	return e.Region
}

// verifyUser proves the registration: a token for the user scoped to its
// project that carries the role.
func (c *Client) verifyUser(ctx context.Context, u ServiceUser) error {
	opts := &tokens.AuthOptions{Username: u.Name, DomainName: u.Domain, Password: u.Password,
		Scope: tokens.Scope{ProjectName: u.Project, DomainName: u.ProjectDomain}}
	res := tokens.Create(ctx, c.identity, opts)
	if res.Err != nil {
		return c.masker.describe(fmt.Sprintf("getting a token as user %q for project %q", u.Name, u.Project), res.Err)
	}
	roleList, err := res.ExtractRoles()
	if err != nil {
		return c.masker.describe("reading the service user's token", err)
	}
	for _, role := range roleList {
		if role.Name == u.Role {
			return nil
		}
	}
	return fmt.Errorf("the token of user %q for project %q does not carry role %q", u.Name, u.Project, u.Role)
}
