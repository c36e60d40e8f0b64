package controlplane

import (
	"fmt"
	"strings"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/storeconf"
)

// MessageExactlyOneDefault is the guide's text for zero or several defaults.
const MessageExactlyOneDefault = "exactly one backends entry must set isDefault"

// ValidateBackends checks services.glance.backends[] the way admission does,
// so the sync hook never projects a list the API server should have refused.
// It returns every problem, in entry order.
func ValidateBackends(backends []api.BackendEntry) []string {
	var problems []string
	defaults := 0
	seen := map[string]bool{}
	for i, e := range backends {
		at := fmt.Sprintf("backends[%d]", i)
		if e.Name == "" {
			problems = append(problems, at+": name is required")
		} else {
			if err := storeconf.ValidateStoreID(e.Name); err != nil {
				problems = append(problems, at+": "+err.Error())
			}
			if seen[e.Name] {
				problems = append(problems, fmt.Sprintf("%s: duplicate entry name %q", at, e.Name))
			}
			seen[e.Name] = true
		}
		if e.IsDefault {
			defaults++
		}
		if e.Type != api.BackendTypeS3 {
			problems = append(problems, fmt.Sprintf("%s: type must be S3", at))
			continue
		}
		if e.S3 == nil {
			problems = append(problems, at+": s3 is required when type is S3")
			continue
		}
		var missing []string
		if e.S3.Endpoint == "" {
			missing = append(missing, "s3.endpoint")
		}
		if e.S3.Bucket == "" {
			missing = append(missing, "s3.bucket")
		}
		if e.S3.CredentialsSecretRef.Name == "" {
			missing = append(missing, "s3.credentialsSecretRef.name")
		}
		if len(missing) > 0 {
			problems = append(problems, fmt.Sprintf("%s: %s required", at, strings.Join(missing, ", ")))
		}
	}
	if defaults != 1 {
		problems = append(problems, fmt.Sprintf("%s (found %d)", MessageExactlyOneDefault, defaults))
	}
	return problems
}
