package keystone

import (
	"context"
	"fmt"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/endpoints"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/services"
)

// Deregistration names what Deregister removes.
type Deregistration struct {
	Owner       string
	ServiceName string
	ServiceType string
}

// Deregister removes the endpoints of the service that the owner created,
// then the service itself when the owner created it and no endpoint of
// anyone else is left on it. Objects made by hand or by another owner stay,
// and so do the user, its role assignment, the project and the role: the
// user's password Secret outlives the ControlPlane, and a ControlPlane made
// again under the same name takes them up as they are.
func (c *Client) Deregister(ctx context.Context, d Deregistration) (Report, error) {
	var r Report
	svc, err := c.findService(ctx, d.ServiceName, d.ServiceType)
	if err != nil || svc == nil {
		return r, err
	}
	existing, err := c.listEndpoints(ctx, svc.ID)
	if err != nil {
		return r, err
	}
	left := 0
	for _, e := range existing {
		if e.Owner != d.Owner {
			left++
			continue
		}
		if err := endpoints.Delete(ctx, c.identity, e.ID).ExtractErr(); err != nil && !gophercloud.ResponseCodeIs(err, 404) {
			return r, c.masker.describe(fmt.Sprintf("removing the %s endpoint in region %q", e.Availability, regionOf(e)), err)
		}
		r.add("removed the %s endpoint of service %q in region %q", e.Availability, d.ServiceName, regionOf(e))
	}
	if owner, _ := svc.Extra[OwnerAttribute].(string); owner != d.Owner {
		return r, nil
	}
	if left > 0 {
		r.add("kept service %q: %d endpoints of others are on it", d.ServiceName, left)
		return r, nil
	}
	if err := services.Delete(ctx, c.identity, svc.ID).ExtractErr(); err != nil && !gophercloud.ResponseCodeIs(err, 404) {
		return r, c.masker.describe(fmt.Sprintf("removing service %q", d.ServiceName), err)
	}
	r.add("removed service %q of type %q", d.ServiceName, d.ServiceType)
	return r, nil
}
