package report

import (
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
)

// SchemaPodDeadline is how long a schema Job's pod may take to get its
// containers going, and a step to finish, before a slow start counts: the
// Deployment's default progress deadline. glance-manage's steps take
// seconds to minutes once they run; one still waiting after that (for a
// database it cannot reach, say) is worth saying long before the Job's
// activeDeadlineSeconds ends it.
const SchemaPodDeadline = defaultProgressDeadline

// ExplainSchemaJob adds what the pods of the current step's Job show to
// DatabaseReady. While the Job runs, their reason replaces SchemaSyncRunning
// or SchemaUpgrading (the message still names the Job and its step); once
// it failed, SchemaSyncFailed or SchemaUpgradeFailed stays, and the pods'
// summary says how its pods ended.
func ExplainSchemaJob(c hook.Condition, pods PodsVerdict) hook.Condition {
	if c.Status || pods.Reason == "" {
		return c
	}
	switch c.Reason {
	case model.ReasonSchemaSyncRunning, model.ReasonSchemaUpgrading:
		c.Reason = pods.Reason
	case model.ReasonSchemaSyncFailed, model.ReasonSchemaUpgradeFailed:
	default:
		return c
	}
	c.Message += "; " + pods.Message
	return c
}
