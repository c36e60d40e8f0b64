package rules

import (
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/inivalue"
	"github.com/c5c3/glance-hooks/hooks/contract/problem"
)

// Problems here name fields and say what is wrong; they never repeat a value
// that could be a credential (URLs, option values).

// valueProblems checks a value written into the config.
func valueProblems(at *field.Path, v string) problem.List {
	if p := inivalue.ValueProblem(v); p != "" {
		return problem.List{problem.Invalid(at, "%s", p)}
	}
	return nil
}

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

// characterProblems checks a string that reaches a rendered file, a label,
// a status field or a process argument for characters none may carry
// (inivalue.CharacterProblem).
func characterProblems(at *field.Path, v string) problem.List {
	if p := inivalue.CharacterProblem(v); p != "" {
		return problem.List{problem.Invalid(at, "%s", p)}
	}
	return nil
}
