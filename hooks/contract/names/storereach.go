package names

// ConditionStoreReachable is the GlanceBackend condition that says whether
// its store's S3 endpoint answered the service's last check; its Glance
// reads it to say which of its stores is down. ReasonStoreUnreachable is
// the reason both give while it does not answer: the words a user
// searching for a store outage types. ReasonStoreNotChecked is the
// backend's reason when nothing was checked (the service runs without
// checks, or the backend names no endpoint): the condition is there on
// every sync, so tooling waiting for it returns, and the Glance counts
// such a store neither as up nor as down.
const (
	ConditionStoreReachable = "StoreReachable"
	ReasonStoreUnreachable  = "StoreUnreachable"
	ReasonStoreNotChecked   = "StoreNotChecked"
)
