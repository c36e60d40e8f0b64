// Package refexamples holds the reference's published Glance and
// GlanceBackend examples, unchanged, under docs/ (its documentation) and
// e2e/ (the CRs its end-to-end and tempest suites apply); README.md says
// where each comes from. The tests prove each is admitted and converges to
// Ready, in process and on a real kube-apiserver.
package refexamples
