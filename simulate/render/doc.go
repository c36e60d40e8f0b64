// Package render answers "what would the cluster get?" without a cluster. It
// reads ControlPlanes, Glances, GlanceBackends, Secrets and ConfigMaps (CA
// bundles) from YAML or JSON,
// admits each object with the validate hook's rules, runs the hooks in-process
// through simulate/chain (customize -> related, sync -> children and status,
// round after round, until nothing changes), and writes every resulting
// object with Secret values redacted, the parents' conditions, or the
// difference between two inputs.
//
// Everything here is deterministic: objects come out in kind, namespace, name
// order, the clock is fixed (Epoch) and uids are derived from object names,
// so the same input always renders to the same bytes.
package render
