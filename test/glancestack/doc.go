// Package glancestack runs a whole Glance for tests: the real servers it
// talks to (test/services: MariaDB, Keystone, memcached, an S3 server), the
// hooks in-process (simulate/chain) on the guide's ControlPlane or
// a standalone Glance, and what the hooks render run as a kubelet would
// (test/podrun): the schema Jobs against the real database, glance-api from
// the rendered Deployment in the launch mode of its release. Nothing is
// added to what the hooks render; only host names and ports in the spec
// point at loopback (keystoneEndpoint, database.host and port,
// cache.servers, the stores' S3 endpoint), metadefsPath names where
// Debian's glance-common keeps the metadata definitions, and programs are
// found on podrun's PATH.
//
// The Job controller and the Deployment controller are the stack's: the
// World's Jobs stay running until the stack has run their pod for real and
// reports the outcome (chain.World.FinishJob), and its Deployment's status
// is what the stack's pods are (chain.World.ReportRollout), rolled as the
// rendered strategy says (one new pod ready before an old one stops). So
// the hooks see the real outcome of every step. Events records, in order,
// every Job run and every pod started and stopped.
//
// Servers are shared: StartServices once (a test that starts stacks in
// parallel subtests starts it in the parent), then New for each stack; each
// stack has a database and user of its own on the shared MariaDB and an S3
// server of its own with the two buckets.
//
//	svc := glancestack.StartServices(t)
//	st := glancestack.New(t, svc, glancestack.Options{Release: "2026.1"})
//	st.Reconcile(t)                    // schema Job, then glance-api ready
//	api := st.Client(t, st.Pods()[0])  // a Keystone token of the guide's admin
//	stores := api.Stores(t)            // GET /v2/info/stores
//	id := api.UploadActive(t, "img", data, "secondary", "secondary")
//	st.SetBackends(t, ...)             // the guide's Step 3, and so on
//	st.Reconcile(t)                    // new ConfigMap, pods rolled
//
// Linux only (podrun), as root; absent servers skip the test, or fail it
// under REQUIRE_SERVICES.
package glancestack
