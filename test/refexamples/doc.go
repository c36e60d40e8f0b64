// Package refexamples holds the reference's published Glance,
// GlanceBackend and ControlPlane examples, unchanged, under docs/ (its
// documentation) and e2e/ (the CRs its end-to-end and tempest suites
// apply), and its suites of refused CRs under refused/; README.md says
// where each comes from. The tests prove each example is admitted and
// converges to Ready, and each refused CR refused in the words the suite
// waits for, in process and on a real kube-apiserver.
package refexamples
