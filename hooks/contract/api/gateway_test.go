package api

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestGatewayRules: the gateway part's rules, in the words both gates
// give, at paths relative to the Glance settings.
func TestGatewayRules(t *testing.T) {
	cases := map[string]struct {
		reason string
		spec   string // the Glance's gateway, as JSON
		want   []string
	}{
		"Unset": {reason: "no block, no route", spec: `{}`},
		"Valid": {
			reason: "a host, a Gateway in another namespace, a clean path, an annotation",
			spec:   `{"gateway":{"hostname":"images.example.com","parentRef":{"name":"edge","namespace":"gw","sectionName":"https"},"path":"/image","annotations":{"example.com/x":"y"}}}`,
		},
		"GatewayShapes": {
			reason: "a wildcard host, an upper-case Gateway name, a path with //, a bad annotation key",
			spec:   `{"gateway":{"hostname":"*.example.com","parentRef":{"name":"Edge","namespace":"a.b","sectionName":"HTTPS"},"path":"/a//b","annotations":{"a b":"c"}}}`,
			want: []string{
				"gateway.hostname must name one host: it is the endpoint clients use, which a wildcard is not",
				"gateway.parentRef.name must be the name of a Gateway (a lower-case DNS name)",
				"gateway.parentRef.namespace must be a namespace name",
				"gateway.parentRef.sectionName must be a listener name (a lower-case DNS name)",
				"gateway.path must be a clean path: no //, /./ or /../",
				"gateway.annotations holds a key that is not a qualified name ([prefix/]name)",
			},
		},
		"Empty": {
			reason: "a block naming neither host nor Gateway, in the reference's words",
			spec:   `{"gateway":{"parentRef":{}}}`,
			want: []string{
				"gateway.hostname: hostname must be set when spec.gateway is configured",
				"gateway.parentRef.name: parentRef.name must be set when spec.gateway is configured",
			},
		},
		"UpperCaseHost": {
			reason: "a host that is no lower-case DNS name",
			spec:   `{"gateway":{"hostname":"Images.example.com","parentRef":{"name":"edge"}}}`,
			want:   []string{"gateway.hostname must be a lower-case DNS name"},
		},
		"PathWithQuery": {
			reason: "a route path has no query",
			spec:   `{"gateway":{"hostname":"images.example.com","parentRef":{"name":"edge"},"path":"image?x=1"}}`,
			want:   []string{"gateway.path must start with / and hold only URL path characters"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var s GlanceSpec
			if err := json.Unmarshal([]byte(tc.spec), &s); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range gatewayRules(s) {
				got = append(got, p.String())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s: -want +got:\n%s", tc.reason, diff)
			}
		})
	}
}
