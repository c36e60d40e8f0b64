package api

// Where a spec.middleware filter goes in the paste pipeline: before every
// filter the hooks put there, or after them, just before the application.
const (
	MiddlewareBefore = "before"
	MiddlewareAfter  = "after"
)

// PolicyConfigMapKey is the key of a policyOverrides.configMapRef
// ConfigMap that holds the policy rules, as the reference reads it.
const PolicyConfigMapKey = "policy.yaml"
