package observe

// Action is what a schema Job does.
type Action string

const (
	// ActionSync runs glance-manage db sync, then loads the metadata
	// definitions: first install, and a new image of the same release.
	ActionSync Action = "sync"
	// The three steps of a release upgrade; contract also loads the
	// metadata definitions of the new release.
	ActionExpand   Action = "expand"
	ActionMigrate  Action = "migrate"
	ActionContract Action = "contract"
)

// JobState is what an observed Job has come to.
type JobState int

const (
	JobRunning JobState = iota
	JobSucceeded
	JobFailed
)

// SchemaJob is one schema Job: what it does with which image.
type SchemaJob struct {
	Action Action
	Image  string
}

// ObservedJob is a schema Job Metacontroller reported.
type ObservedJob struct {
	Name  string
	Job   SchemaJob
	State JobState
}
