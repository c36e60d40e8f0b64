// Package datapath proves that what the hooks render serves for real:
// test/glancestack runs the guide's ControlPlane through the hooks, the
// schema Jobs against a real MariaDB and glance-api (Debian's 25.1) from
// the rendered Deployment in both launch modes (the eventlet server for
// 2025.2, uWSGI for 2026.1), authenticating real Keystone tokens with the
// token cache in a real memcached, its stores on a real S3 server
// (versitygw, which checks SigV4 signatures). Only host names and ports in
// the spec point at loopback, and programs are found on Debian's PATH.
//
// The tests skip when a component is not installed (`make datapath-deps`
// and `make services-deps` install them), unless REQUIRE_SERVICES is set,
// as `make test` sets it; then that is a failure.
package datapath
