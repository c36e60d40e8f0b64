package test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/schemas"
)

// Each CRD's status.conditions description (what `kubectl explain
// glance.status.conditions` prints) names every condition the hooks write
// for that kind and every reason such a condition is False for, except
// Ready's NotAllReady, which the description spells out as "all of them
// True". The conditions are read from the sync fixtures' answers, so a new
// condition or reason that reaches a fixture and not the CRD fails here.
func TestCRDsDescribeEveryCondition(t *testing.T) {
	crdOf := map[string]string{
		"sync-controlplane":  schemas.ControlPlaneFile,
		"sync-glance":        schemas.GlanceFile,
		"sync-glancebackend": schemas.GlanceBackendFile,
	}
	for dir, file := range crdOf {
		t.Run(dir, func(t *testing.T) {
			schema := conditionsSchema(t, file)
			desc := schema.Description
			responses, err := filepath.Glob(filepath.Join("fixtures", dir, "*", "response.json"))
			require.NoError(t, err)
			require.NotEmpty(t, responses)
			named := map[string]bool{}
			for _, path := range responses {
				raw, err := os.ReadFile(path)
				require.NoError(t, err)
				var resp struct {
					Body struct {
						Status struct {
							Conditions []struct{ Type, Status, Reason string }
						}
					}
				}
				require.NoError(t, json.Unmarshal(raw, &resp), path)
				// Every condition is reported on every sync: the API
				// server refuses a status with more than the CRD allows.
				assert.LessOrEqual(t, len(resp.Body.Status.Conditions), schema.MaxItems, "%s: more conditions than %s's maxItems", path, file)
				for _, c := range resp.Body.Status.Conditions {
					named[c.Type] = true
					if c.Status == "False" && c.Reason != hook.ReasonNotAllReady {
						named[c.Reason] = true
					}
				}
			}
			require.NotEmpty(t, named, "the fixtures carry conditions")
			for word := range named {
				assert.Regexp(t, `\b`+regexp.QuoteMeta(word)+`\b`, desc, "%s: the conditions description does not name %s", file, word)
			}
		})
	}
}

// conditionsField is what a CRD says of status.conditions.
type conditionsField struct {
	Description string
	MaxItems    int `json:"maxItems"`
}

// conditionsSchema is what a CRD says of status.conditions.
func conditionsSchema(t *testing.T, file string) conditionsField {
	t.Helper()
	raw, err := schemas.Read(file)
	require.NoError(t, err)
	var crd struct {
		Spec struct {
			Versions []struct {
				Schema struct {
					OpenAPIV3Schema struct {
						Properties struct {
							Status struct {
								Properties struct {
									Conditions conditionsField
								}
							}
						}
					} `json:"openAPIV3Schema"`
				}
			}
		}
	}
	require.NoError(t, yaml.Unmarshal(raw, &crd))
	require.Len(t, crd.Spec.Versions, 1)
	c := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties.Status.Properties.Conditions
	require.NotEmpty(t, c.Description)
	return c
}
