// Package problem is how a check says what is wrong with an object: each
// Problem carries the field it is about and a detail that never repeats the
// value (a value may be a credential). A checker reports paths relative to
// what it was given; its caller re-roots them with Wrap at wherever that
// thing lives (a GlanceBackend's spec.s3, a ControlPlane's
// spec.services.glance.backends[1].s3), so the same check reads right in
// every kind and nobody rewrites a message to move it.
package problem

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/c5c3/glance-hooks/hooks/contract/excerpt"
	"github.com/c5c3/glance-hooks/hooks/contract/inivalue"
)

// Problem is one rule an object breaks.
type Problem struct {
	// Field is where, relative to what was checked. Nil for a problem that
	// names what it is about in its own words ("exactly one backends entry
	// must set isDefault"); Wrap leaves such a problem as it is.
	Field *field.Path
	// Detail says what is wrong.
	Detail string
	// predicate: Detail says something of Field ("is required") and reads
	// right after it; otherwise Detail is a clause of its own, written
	// after "<field>: ".
	predicate bool
}

// Invalid is a problem of a field, said of it: Invalid(bucket, "is
// required") reads "bucket is required". at is never nil.
func Invalid(at *field.Path, format string, args ...any) Problem {
	return Problem{Field: at, Detail: fmt.Sprintf(format, args...), predicate: true}
}

// Required is Invalid(at, "is required").
func Required(at *field.Path) Problem { return Invalid(at, "is required") }

// At is a problem found at a field, said in a clause of its own: At(entry,
// "duplicate entry name %q", n) reads `entry: duplicate entry name "n"`.
func At(at *field.Path, format string, args ...any) Problem {
	return Problem{Field: at, Detail: fmt.Sprintf(format, args...)}
}

// NotSupported is a value outside the values a field takes, in the words
// apimachinery's field.NotSupported gives it (the reference's webhook and
// the API server's enum say it so), less the value, which a message never
// repeats: `at: Unsupported value: supported values: "text", "json"`.
func NotSupported(at *field.Path, supported ...string) Problem {
	return At(at, "%s", field.NotSupported(at, field.OmitValueType{}, supported).ErrorBody())
}

// TooMany is a list or map at that holds n entries where it may hold at
// most most, in the words of apimachinery's field.TooMany, which the
// reference's webhook and the API server's maxItems and maxProperties give
// it: `at: Too many: 65: must have at most 64 items`. The count is no
// value of the object, so the message may carry it.
func TooMany(at *field.Path, n, most int) Problem {
	return At(at, "%s", field.TooMany(at, n, most).ErrorBody())
}

// New is a problem that names what it is about in its own words, at no
// field.
func New(format string, args ...any) Problem { return Problem{Detail: fmt.Sprintf(format, args...)} }

// String is the problem as a message.
func (p Problem) String() string {
	switch {
	case p.Field == nil:
		return p.Detail
	case p.predicate:
		return p.Field.String() + " " + p.Detail
	default:
		return p.Field.String() + ": " + p.Detail
	}
}

// List is every problem a check found, in the order it found them.
type List []Problem

// String joins the problems' messages with "; ".
func (l List) String() string {
	msgs := make([]string, len(l))
	for i, p := range l {
		msgs[i] = p.String()
	}
	return strings.Join(msgs, "; ")
}

// Wrap re-roots problems found in a part of an object at the path of that
// part. A relative path starts with a field name ("s3.bucket", not "[0]").
func Wrap(root *field.Path, l List) List {
	if root == nil {
		return l
	}
	out := make(List, len(l))
	for i, p := range l {
		if p.Field != nil {
			p.Field = root.Child(p.Field.String())
		}
		out[i] = p
	}
	return out
}

// Key is the path of a map entry whose key was written by hand: the key
// escaped when it holds a character a message must not carry.
func Key(at *field.Path, key string) *field.Path {
	if inivalue.CharacterProblem(key) != "" {
		return at.Key(excerpt.Bare(key))
	}
	return at.Key(key)
}
