package keystone

import (
	"context"
	"fmt"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/domains"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/endpoints"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/regions"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/roles"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/services"
)

// OwnerAttribute is the extra attribute Keystone keeps on the users,
// services and endpoints this package creates, holding the owner
// ("<namespace>/<controlplane>"). Keystone stores unknown attributes of
// these objects and returns them, so the mark survives in Keystone itself,
// where a later run and an operator (`openstack endpoint show`) can read it.
const OwnerAttribute = "glance_hooks_owner"

// domainID resolves a domain name.
func (c *Client) domainID(ctx context.Context, name string) (string, error) {
	pages, err := domains.List(c.identity, domains.ListOpts{Name: name}).AllPages(ctx)
	if err != nil {
		return "", c.masker.describe(fmt.Sprintf("looking up domain %q", name), err)
	}
	list, err := domains.ExtractDomains(pages)
	if err != nil {
		return "", c.masker.describe(fmt.Sprintf("reading domain %q", name), err)
	}
	if len(list) != 1 {
		return "", refused("domain %q does not exist in Keystone", name)
	}
	return list[0].ID, nil
}

// ensureProject returns the id of a project, creating it when missing.
func (c *Client) ensureProject(ctx context.Context, name, domainID string, r *Report) (string, error) {
	pages, err := projects.List(c.identity, projects.ListOpts{Name: name, DomainID: domainID}).AllPages(ctx)
	if err != nil {
		return "", c.masker.describe(fmt.Sprintf("looking up project %q", name), err)
	}
	list, err := projects.ExtractProjects(pages)
	if err != nil {
		return "", c.masker.describe(fmt.Sprintf("reading project %q", name), err)
	}
	if len(list) == 1 {
		return list[0].ID, nil
	}
	p, err := projects.Create(ctx, c.identity, projects.CreateOpts{Name: name, DomainID: domainID,
		Description: "Service project, created for the image service's user"}).Extract()
	if err != nil {
		return "", c.masker.describe(fmt.Sprintf("creating project %q", name), err)
	}
	r.add("created project %q", name)
	return p.ID, nil
}

// ensureRole returns the id of a role, creating it when missing: Keystone's
// bootstrap makes admin, member and reader, not the service role the guide
// grants.
func (c *Client) ensureRole(ctx context.Context, name string, r *Report) (string, error) {
	pages, err := roles.List(c.identity, roles.ListOpts{Name: name}).AllPages(ctx)
	if err != nil {
		return "", c.masker.describe(fmt.Sprintf("looking up role %q", name), err)
	}
	list, err := roles.ExtractRoles(pages)
	if err != nil {
		return "", c.masker.describe(fmt.Sprintf("reading role %q", name), err)
	}
	for _, role := range list {
		if role.Name == name && role.DomainID == "" {
			return role.ID, nil
		}
	}
	role, err := roles.Create(ctx, c.identity, roles.CreateOpts{Name: name}).Extract()
	if err != nil {
		return "", c.masker.describe(fmt.Sprintf("creating role %q", name), err)
	}
	r.add("created role %q", name)
	return role.ID, nil
}

// grant is a role for a user on a project, by Keystone id; user names
// them for the report and errors.
type grant struct {
	userID, projectID, roleID string
	user                      ServiceUser
}

// ensureAssignment grants a role to a user on a project unless it is granted.
func (c *Client) ensureAssignment(ctx context.Context, g grant, r *Report) error {
	pages, err := roles.ListAssignments(c.identity, roles.ListAssignmentsOpts{UserID: g.userID, ScopeProjectID: g.projectID, RoleID: g.roleID}).AllPages(ctx)
	if err != nil {
		return c.masker.describe("listing role assignments", err)
	}
	list, err := roles.ExtractRoleAssignments(pages)
	if err != nil {
		return c.masker.describe("reading role assignments", err)
	}
	if len(list) > 0 {
		return nil
	}
	u := g.user
	if err := roles.Assign(ctx, c.identity, g.roleID, roles.AssignOpts{UserID: g.userID, ProjectID: g.projectID}).ExtractErr(); err != nil {
		return c.masker.describe(fmt.Sprintf("granting role %q to user %q on project %q", u.Role, u.Name, u.Project), err)
	}
	r.add("granted role %q to user %q on project %q", u.Role, u.Name, u.Project)
	return nil
}

// ensureRegion makes sure the endpoints' region exists.
func (c *Client) ensureRegion(ctx context.Context, id string, r *Report) error {
	err := regions.Get(ctx, c.identity, id).Err
	if err == nil {
		return nil
	}
	if !gophercloud.ResponseCodeIs(err, 404) {
		return c.masker.describe(fmt.Sprintf("looking up region %q", id), err)
	}
	if _, err := regions.Create(ctx, c.identity, regions.CreateOpts{ID: id}).Extract(); err != nil {
		return c.masker.describe(fmt.Sprintf("creating region %q", id), err)
	}
	r.add("created region %q", id)
	return nil
}

// findService returns the one service of a type and name, nil when there
// is none. Two would make the catalog ambiguous for every client.
func (c *Client) findService(ctx context.Context, name, typ string) (*services.Service, error) {
	pages, err := services.List(c.identity, services.ListOpts{ServiceType: typ, Name: name}).AllPages(ctx)
	if err != nil {
		return nil, c.masker.describe(fmt.Sprintf("looking up service %q of type %q", name, typ), err)
	}
	list, err := services.ExtractServices(pages)
	if err != nil {
		return nil, c.masker.describe(fmt.Sprintf("reading service %q", name), err)
	}
	var found []services.Service
	for _, s := range list {
		if s.Name == name && s.Type == typ {
			found = append(found, s)
		}
	}
	switch len(found) {
	case 0:
		return nil, nil
	case 1:
		return &found[0], nil
	}
	ids := make([]string, len(found))
	for i, s := range found {
		ids[i] = s.ID
	}
	return nil, refused("Keystone has %d services named %q of type %q (%v): remove all but one, clients cannot tell them apart", len(found), name, typ, ids)
}

// endpoint is an endpoint with its owner attribute.
type endpoint struct {
	endpoints.Endpoint
	Owner string `json:"glance_hooks_owner"`
}

// listEndpoints lists a service's endpoints.
func (c *Client) listEndpoints(ctx context.Context, serviceID string) ([]endpoint, error) {
	pages, err := endpoints.List(c.identity, endpoints.ListOpts{ServiceID: serviceID}).AllPages(ctx)
	if err != nil {
		return nil, c.masker.describe("listing endpoints", err)
	}
	var body struct {
		Endpoints []endpoint `json:"endpoints"`
	}
	if err := pages.(endpoints.EndpointPage).ExtractInto(&body); err != nil {
		return nil, c.masker.describe("reading endpoints", err)
	}
	var out []endpoint
	for _, e := range body.Endpoints {
		if e.ServiceID == serviceID {
			out = append(out, e)
		}
	}
	return out, nil
}

// ownedEndpoint creates an endpoint carrying the owner attribute, which
// gophercloud's CreateOpts has no field for.
type ownedEndpoint struct {
	endpoints.CreateOpts
	owner string
}

func (o ownedEndpoint) ToEndpointCreateMap() (map[string]any, error) {
	m, err := o.CreateOpts.ToEndpointCreateMap()
	if err != nil {
		return nil, err
	}
	m["endpoint"].(map[string]any)[OwnerAttribute] = o.owner
	return m, nil
}
