// Package guide holds the user guide's own objects, word for word as it
// prints them, for every test that applies them to a real API server.
package guide

import "strings"

// The guide's ControlPlane (Step 2, both entries), its standalone Glance,
// and the standalone GlanceBackends primary (default) and secondary.
const (
	ControlPlane = `apiVersion: c5c3.io/v1alpha1
kind: ControlPlane
metadata:
  name: controlplane
  namespace: openstack
spec:
  services:
    glance:
      backends:
        - name: default
          type: S3
          isDefault: true
          s3:
            endpoint: http://garage.shared-services.svc.cluster.local:3900
            bucket: glance-images
            region: garage
            credentialsSecretRef:
              name: garage-s3-credentials
        - name: secondary
          type: S3
          isDefault: false
          s3:
            endpoint: http://garage.shared-services.svc.cluster.local:3900
            bucket: glance-images-2
            region: garage
            credentialsSecretRef:
              name: garage-s3-credentials
`
	Glance = `apiVersion: glance.openstack.c5c3.io/v1alpha1
kind: Glance
metadata:
  name: glance
  namespace: openstack
spec:
  openStackRelease: "2025.2"
  image:
    repository: ghcr.io/c5c3/glance
    tag: "2025.2"
  database:
    clusterRef:
      name: openstack-db
    database: glance
    secretRef:
      name: glance-db
  cache:
    clusterRef:
      name: openstack-memcached
  keystoneEndpoint: http://keystone.openstack.svc.cluster.local:5000/v3
  serviceUser:
    username: glance
    projectName: service
    userDomainName: Default
    projectDomainName: Default
    secretRef:
      name: glance-service-user
      key: password
`
	Backends = `apiVersion: glance.openstack.c5c3.io/v1alpha1
kind: GlanceBackend
metadata:
  name: primary
  namespace: openstack
spec:
  glanceRef:
    name: glance
  type: S3
  isDefault: true
  s3:
    host: http://garage.shared-services.svc.cluster.local:3900
    bucket: glance-images
    region: garage
    credentialsSecretRef:
      name: garage-s3-credentials
---
apiVersion: glance.openstack.c5c3.io/v1alpha1
kind: GlanceBackend
metadata:
  name: secondary
  namespace: openstack
spec:
  glanceRef:
    name: glance
  type: S3
  isDefault: false
  s3:
    host: http://garage.shared-services.svc.cluster.local:3900
    bucket: glance-images-2
    region: garage
    credentialsSecretRef:
      name: garage-s3-credentials
`
)

// SecondaryBackend is the guide's second GlanceBackend alone, the
// non-default store the rule tables change.
func SecondaryBackend() string {
	_, secondary, _ := strings.Cut(Backends, "---\n")
	return secondary
}
