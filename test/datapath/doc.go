// Package datapath proves the rendered configuration on a real glance-api:
// the hooks run in-process through internal/simulate/chain as Metacontroller would chain
// them, the ConfigMap and backends Secret the Deployment mounts are written
// to disk unchanged, the schema Job the hooks create runs glance-manage
// against a real MariaDB, and glance-api (Debian's package) starts with the
// Deployment's own command, arguments and environment against versitygw, a
// real S3 server that checks SigV4 signatures. See TestDataPath.
//
// The test skips when glance-api, versitygw or MariaDB is not installed
// (`make datapath-deps` and `make services-deps` install them) unless
// REQUIRE_DATAPATH (and REQUIRE_SERVICES) is set, as CI sets them, in which
// case their absence is a failure.
package datapath
