// Package keystone proves the registration a ControlPlane projects on a
// real Keystone (test/services: Debian's keystone under uWSGI on MariaDB):
// the glance-hooks binary, built as the image builds it, runs
// `keystone register` and `keystone deregister` with its secrets in the
// environment, and the openstack CLI reads back what Keystone holds.
package keystone
