package decide

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSectionIDs(t *testing.T) {
	cases := map[string]struct {
		reason string
		text   string
		want   []string
	}{
		"Sections": {"every [id] header, in order, the first line included",
			"[b]\ns3_store_host = x\n\n[a]\ns3_store_bucket = y\n", []string{"b", "a"}},
		"LastLineWithoutNewline": {"a header on the last line without its newline counts",
			"[a]\nk = v\n\n[c]", []string{"a", "c"}},
		"NotHeaders": {"an empty header, an unclosed one, one with a carriage return and one indented are no ids",
			"[]\n[a\n[b]\r\n [c]\nk = [d]\n", []string{}},
		"Empty": {"an empty file has none", "", []string{}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, sectionIDs(tc.text)); diff != "" {
				t.Errorf("%s\nsectionIDs: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
