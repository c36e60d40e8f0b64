package kubechain

import "testing"

func ptr[T any](v T) *T { return &v }

func TestWebhookEndpoint(t *testing.T) {
	cases := map[string]struct {
		reason string
		spec   Webhook
		want   string
		err    bool
	}{
		"service": {"the chart's form: Metacontroller dials <name>.<namespace>:<port> with the protocol, then the path",
			Webhook{Service: &WebhookService{Name: "glance-hooks", Namespace: "ns", Port: ptr[int32](8443), Protocol: ptr("https")}, Path: ptr("/sync/glance")},
			"https://glance-hooks.ns:8443/sync/glance", false},
		"service defaults": {"without port and protocol Metacontroller uses http on 80",
			Webhook{Service: &WebhookService{Name: "h", Namespace: "ns"}, Path: ptr("/x")}, "http://h.ns:80/x", false},
		"url":  {"hookBaseURL renders a URL, taken as it is", Webhook{URL: ptr("https://example.test/sync")}, "https://example.test/sync", false},
		"none": {"neither is refused", Webhook{Path: ptr("/x")}, "", true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := tc.spec.Endpoint()
			if (err != nil) != tc.err {
				t.Fatalf("%s: error %v, want error %v", tc.reason, err, tc.err)
			}
			if got != tc.want {
				t.Errorf("%s: %q, want %q", tc.reason, got, tc.want)
			}
		})
	}
}

func TestUpdateMethod(t *testing.T) {
	cases := map[string]struct {
		reason string
		rule   ResourceRule
		want   string
	}{
		"unset": {"Metacontroller's default: children are recreated, never updated", ResourceRule{}, "OnDelete"},
		"in place": {"the chart's choice for children that follow the hook", ResourceRule{UpdateStrategy: &struct {
			Method string `json:"method"`
		}{Method: "InPlace"}}, "InPlace"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := tc.rule.UpdateMethod(); got != tc.want {
				t.Errorf("%s: %q, want %q", tc.reason, got, tc.want)
			}
		})
	}
}
