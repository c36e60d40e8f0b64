package render

import (
	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
)

// Outcome is what a sync returns besides status.
type Outcome struct {
	Children     []any
	ConfigName   string
	BackendsName string
	Rendered     hook.Condition
	// InConfig holds the store ids in the backends Secret the returned
	// Deployment mounts.
	InConfig map[string]bool
	// Database and serviceUser are the credentials and schema conditions.
	Database, ServiceUser hook.Condition
	// Installed is the status of the schema: what is installed and the
	// upgrade in progress.
	Installed api.GlanceStatus
	// RunImage is the image the returned Deployment runs, "" when nothing
	// was re-rendered.
	RunImage string
	// SchemaJob is the Job of the current schema step, "" when no step is
	// due: its pods explain DatabaseReady.
	SchemaJob string
	// Waiting is set while the first render waits for stores on their way.
	Waiting bool
	// Reach are the conditions of the route and the NetworkPolicies.
	Reach []hook.Condition
}
