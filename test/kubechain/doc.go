// Package kubechain is Metacontroller for integration tests against a real
// kube-apiserver: it reads the CompositeController registrations an
// install put there (parent and child resources, hook URLs with their CA
// and token Secrets, customize), lists parents, children and related
// objects through the API server, posts the hooks the requests in
// Metacontroller's shape over HTTPS, and applies their answers with
// simulate/chain's rules (chain.ApplySync over a chain.Cluster
// backed by the API server), writing status through the status
// subresource. Where no controller-manager runs, it plays the Job and
// Deployment controllers: an unfinished Job completes and a Deployment
// reports its rollout done, each through the real status subresource in
// the shape those controllers write.
//
// The in-memory chain.World is the fast, exact model; this package is the
// proof that the same rules hold on the real API server (its defaulting,
// validation, admission and status subresource).
package kubechain
