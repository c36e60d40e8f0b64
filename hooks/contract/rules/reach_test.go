package rules

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
)

func TestNetworkPolicyBlockProblems(t *testing.T) {
	cases := map[string]struct {
		reason string
		spec   string // the Glance's networkPolicy (and gateway), as JSON
		want   []string
	}{
		"Valid": {
			reason: "a source and an extra rule",
			spec: `{"networkPolicy":{"ingress":[{"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"gw"}}}],
				"additionalEgress":[{"to":[{"ipBlock":{"cidr":"203.0.113.0/24","except":["203.0.113.1/32"]}}],"ports":[{"protocol":"TCP","port":443}]}]}}`,
		},
		"GatewayElsewhere": {
			reason: "the gateway's rules are its spec part's, not this check's",
			spec:   `{"gateway":{"hostname":"*.example.com","parentRef":{"name":"edge"}}}`,
		},
		"NoSources": {
			reason: "fail closed: a policy needs a source",
			spec:   `{"networkPolicy":{"ingress":[]}}`,
			want:   []string{"networkPolicy.ingress: at least one ingress source must be specified"},
		},
		"SourceShapes": {
			reason: "a source with no selector, one with pods but no namespaces, a bad label value, an operator without values",
			spec: `{"networkPolicy":{"ingress":[{},{"podSelector":{"matchLabels":{"role":"a b"}}},
				{"namespaceSelector":{"matchExpressions":[{"key":"team","operator":"In"}]}}]}}`,
			want: []string{
				"networkPolicy.ingress[0].namespaceSelector is required: it selects the source's namespaces (kubernetes.io/metadata.name: <namespace> for the Glance's own), and podSelector narrows them to pods there",
				"networkPolicy.ingress[1].namespaceSelector is required: it selects the source's namespaces (kubernetes.io/metadata.name: <namespace> for the Glance's own), and podSelector narrows them to pods there",
				"networkPolicy.ingress[1].podSelector.matchLabels holds a label key or value Kubernetes does not allow",
				"networkPolicy.ingress[2].namespaceSelector.matchExpressions[0].values must not be empty for In and NotIn",
			},
		},
		"EgressMisspelt": {
			reason: "a misspelt field would widen the rule: refused",
			spec:   `{"networkPolicy":{"ingress":[{"namespaceSelector":{}}],"additionalEgress":[{"too":[{"ipBlock":{"cidr":"10.0.0.0/8"}}]}]}}`,
			want:   []string{"networkPolicy.additionalEgress must be NetworkPolicy egress rules (to, ports) with no other fields"},
		},
		"EgressShapes": {
			reason: "a bad protocol, port, end port, CIDR, an empty peer, an ipBlock with a selector",
			spec: `{"networkPolicy":{"ingress":[{"namespaceSelector":{}}],"additionalEgress":[
				{"ports":[{"protocol":"ICMP"},{"port":0},{"port":"https","endPort":444}]},
				{"to":[{},{"ipBlock":{"cidr":"10.0.0.0/33"}},{"ipBlock":{"cidr":"10.0.0.0/8"},"podSelector":{}}]}]}}`,
			want: []string{
				"networkPolicy.additionalEgress[0].ports[0].protocol must be TCP, UDP or SCTP",
				"networkPolicy.additionalEgress[0].ports[1].port must be between 1 and 65535",
				"networkPolicy.additionalEgress[0].ports[2].endPort needs a numeric port and must be between it and 65535",
				"networkPolicy.additionalEgress[1].to[0] needs ipBlock, namespaceSelector or podSelector",
				"networkPolicy.additionalEgress[1].to[1].ipBlock.cidr must be a CIDR",
				"networkPolicy.additionalEgress[1].to[2].ipBlock excludes namespaceSelector and podSelector",
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var s api.GlanceSpec
			if err := json.Unmarshal([]byte(tc.spec), &s); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range networkPolicyBlockProblems(s, rawAt([]byte(tc.spec), "networkPolicy", "additionalEgress")) {
				got = append(got, p.String())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s: -want +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// rawAt reads the members on the way where they are; whatever the object,
// it answers what decoding each one on the way into a map answers.
func TestRawAtAsDecoded(t *testing.T) {
	cases := map[string]string{
		"present":              `{"spec":{"networkPolicy":{"additionalEgress":[{"ports":[]}]}},"status":{"backends":[{"name":"a"}]}}`,
		"absent":               `{"spec":{"networkPolicy":{}}}`,
		"no spec":              `{"status":{}}`,
		"null on the way":      `{"spec":{"networkPolicy":null}}`,
		"null at the end":      `{"spec":{"networkPolicy":{"additionalEgress":null}}}`,
		"not an object":        `{"spec":{"networkPolicy":"x"}}`,
		"an array on the way":  `{"spec":[1]}`,
		"given twice":          `{"spec":{"networkPolicy":{"additionalEgress":1}},"spec":{"networkPolicy":{"additionalEgress":2}}}`,
		"another case":         `{"Spec":{"networkPolicy":{"additionalEgress":1}},"spec":{"networkPolicy":{"additionalEgress":2}}}`,
		"only another case":    `{"SPEC":{"networkPolicy":{"additionalEgress":1}}}`,
		"escaped key":          `{"sp\u0065c":{"networkPolicy":{"additionalEgress":3}}}`,
		"top-level null":       `null`,
		"top-level array":      `[]`,
		"spaces":               " { \"spec\" : { \"networkPolicy\" : { \"additionalEgress\" : [ ] } } } ",
		"value with an escape": `{"spec":{"networkPolicy":{"additionalEgress":"a\"b"}}}`,
	}
	for name, obj := range cases {
		t.Run(name, func(t *testing.T) {
			path := []string{"spec", "networkPolicy", "additionalEgress"}
			if diff := cmp.Diff(string(rawAtDecoded([]byte(obj), path...)), string(rawAt([]byte(obj), path...))); diff != "" {
				t.Errorf("rawAt, -decoded +read:\n%s", diff)
			}
		})
	}
}

// FuzzRawAt holds rawAt to decoding each object on the way, on any valid
// JSON.
func FuzzRawAt(f *testing.F) {
	f.Add([]byte(`{"spec":{"deployment":{"x":1}}}`), "spec", "deployment")
	f.Add([]byte(`{"Spec":{"deployment":1},"spec":{"Deployment":2}}`), "spec", "deployment")
	f.Fuzz(func(t *testing.T, obj []byte, a, b string) {
		if !json.Valid(obj) {
			return
		}
		if got, want := rawAt(obj, a, b), rawAtDecoded(obj, a, b); string(got) != string(want) {
			t.Fatalf("rawAt(%s, %q, %q) = %s, decoding says %s", obj, a, b, got, want)
		}
	})
}
