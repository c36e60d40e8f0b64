package rules

import (
	"strings"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
)

// Problems here name fields and say what is wrong; they never repeat a value
// that could be a credential (URLs, option values).

// requiredValue checks a value that must be set and is written into the
// config; the spec parts hold theirs to the same check.
var requiredValue = api.RequiredValue

// shortValidation drops the example and regex from an apimachinery
// validation message; what the rule is stays.
func shortValidation(msg string) string {
	if i := strings.Index(msg, " (e.g. "); i > 0 {
		return msg[:i]
	}
	return msg
}
