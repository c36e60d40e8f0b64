package names

// ConditionStoreReachable is the GlanceBackend condition that says whether
// its store's S3 endpoint answered the service's last check; its Glance
// reads it to say which of its stores is down. ReasonStoreUnreachable is
// the reason both give while it does not answer: the words a user
// searching for a store outage types.
const (
	ConditionStoreReachable = "StoreReachable"
	ReasonStoreUnreachable  = "StoreUnreachable"
)
