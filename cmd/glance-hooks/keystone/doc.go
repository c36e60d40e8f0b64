// Package keystone registers a Glance in Keystone and removes what it
// registered: the service user (with its role on its project), the image
// service and its endpoints. It is what `glance-hooks keystone register` and
// `glance-hooks keystone deregister` run inside the registration Jobs a
// ControlPlane projects.
//
// Every step reads first and changes only what differs, so a second run
// changes nothing. What it creates carries an ownership attribute
// (OwnerAttribute = "<namespace>/<controlplane>") so a later run can tell
// its own objects from objects made by hand: it rotates the password only
// of a user it owns (or one whose password the Secret already proves), and
// deregistration removes only endpoints and a service it owns.
//
// No error or report line carries a password or a token: Keystone's own
// error messages are cut and have every secret this run knows masked.
package keystone
