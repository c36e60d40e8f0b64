package model

import (
	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
)

// The labels of what a Glance renders, which render sets and observe and
// report select by.
const (
	// ComponentAPI labels glance-api's pods, componentSchema the schema
	// Jobs' pods: the pods sync reads.
	ComponentAPI    = names.ComponentAPI
	ComponentSchema = "schema"
)

// SelectorLabels select a Glance's pods.
func SelectorLabels(g *api.Glance) map[string]string {
	return names.APISelectorLabels(g.Name)
}

// ObjectLabels are on everything the Glance hook renders.
func ObjectLabels(g *api.Glance) map[string]string {
	l := SelectorLabels(g)
	l[names.LabelManagedBy] = names.ManagedBy
	return l
}
