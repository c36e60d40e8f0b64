package glance

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/glance/decide"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
	"github.com/c5c3/glance-hooks/hooks/glance/render"
	"github.com/c5c3/glance-hooks/hooks/glance/storestate"
)

func TestRetiringStores(t *testing.T) {
	running := "[archive]\ns3_store_bucket = archive\n\n[default]\ns3_store_bucket = images\n\n[forged]\ns3_store_bucket = f\n\x1cdebug = true\n\n[old]\ns3_store_bucket = old\n" +
		"\n[tls]\ns3_store_cacert = /etc/glance/s3-ca/tls/ca.crt\n\n[tlsgone]\ns3_store_cacert = /etc/glance/s3-ca/tlsgone/ca.crt\n"
	attached := []*model.Store{attached("default", true, ""), attached("faulted", false, "its credentials are not ready")}
	digest := "sha256:" + strings.Repeat("cd", 32)
	mounts := &render.DeploymentChild{}
	addCABundles(mounts, []*model.Store{{ID: "tls", State: storestate.Rendered, CA: &model.CAMount{Ref: api.CABundleRef{Name: "internal-ca"}, Digest: digest}}}, "")
	current := &appsv1.Deployment{Spec: mounts.Spec}
	tlsCA := &model.CAMount{Ref: api.CABundleRef{Kind: "ConfigMap", Name: "internal-ca", Key: "ca.crt"}, Digest: digest}
	type got struct {
		ID                string
		Rendered, Dropped bool
		Section           string
		CA                *model.CAMount
	}
	cases := map[string]struct {
		reason string
		drop   []string
		want   []got
	}{
		"KeptUntilDropped": {
			reason: "a store in the running config without a backend keeps its section, as running, with the CA bundle the Deployment mounts for it; a section naming a bundle not mounted is not kept",
			want: []got{
				{ID: "archive", Rendered: true, Section: "[archive]\ns3_store_bucket = archive\n"},
				{ID: "forged"},
				{ID: "old", Rendered: true, Section: "[old]\ns3_store_bucket = old\n"},
				{ID: "tls", Rendered: true, Section: "[tls]\ns3_store_cacert = /etc/glance/s3-ca/tls/ca.crt\n", CA: tlsCA},
				{ID: "tlsgone"},
			},
		},
		"Dropped": {
			reason: "a store spec.dropRetiredStores lists goes; the others stay",
			drop:   []string{"old", "not-running"},
			want: []got{
				{ID: "archive", Rendered: true, Section: "[archive]\ns3_store_bucket = archive\n"},
				{ID: "forged"},
				{ID: "old", Dropped: true},
				{ID: "tls", Rendered: true, Section: "[tls]\ns3_store_cacert = /etc/glance/s3-ca/tls/ca.crt\n", CA: tlsCA},
				{ID: "tlsgone"},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var out []got
			for _, s := range decide.RetiringStores(attached, running, tc.drop, current) {
				if !s.Retired || s.Skipped == "" {
					t.Errorf("%s: a retired store says why it is kept or not", s.ID)
				}
				out = append(out, got{ID: s.ID, Rendered: s.State.Rendered(), Dropped: s.State == storestate.Dropped, Section: s.Section, CA: s.CA})
			}
			if diff := cmp.Diff(tc.want, out, cmp.AllowUnexported(model.CAMount{})); diff != "" {
				t.Errorf("%s\nretiringStores: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
	if r := decide.RetiringStores(attached, "", nil, nil); r != nil {
		t.Errorf("no running config (first install), nothing retires: %v", r)
	}
}
