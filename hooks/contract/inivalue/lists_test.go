package inivalue

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestHostAddressProblem(t *testing.T) {
	cases := map[string]struct {
		reason string
		host   string
		ok     bool
	}{
		"name":           {"a host name", "mirror.example.com", true},
		"single label":   {"the API server's short name", "kubernetes", true},
		"trailing dot":   {"oslo.config strips one", "mirror.example.com.", true},
		"ipv4":           {"an address", "10.0.0.7", true},
		"ipv6":           {"an address", "::1", true},
		"ipv6 long form": {"Glance compares the canonical form", "0:0::1", false},
		"underscore":     {"not in a host name", "mirror_1.example.com", false},
		"numeric tld":    {"the last label must not be all digits", "10.0.0", false},
		"leading dash":   {"labels do not start with '-'", "-a.example.com", false},
		"comma":          {"would split the list", "a.example.com,b", false},
		"bracket":        {"would end the list", "a]", false},
		"empty":          {"nothing", "", false},
		"too long":       {"253 characters at most", strings.Repeat("a.", 127) + "com", false},
		"zone":           {"a zone is no host", "fe80::1%eth0", false},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			p := HostAddressProblem(c.host)
			if (p == "") != c.ok {
				t.Errorf("%s: HostAddressProblem(%q) = %q", c.reason, c.host, p)
			}
		})
	}
}

func TestListValues(t *testing.T) {
	// Map order varies from run to run; the line must not.
	for i := 0; i < 20; i++ {
		if got := DictValue(map[string]string{"z": "", "b": "2", "a": "1"}); got != "a:1,b:2,z:" {
			t.Fatalf("DictValue = %q, want the pairs sorted by name", got)
		}
	}
	if diff := cmp.Diff("[]", BracketList(nil)); diff != "" {
		t.Errorf("BracketList(nil): %s", diff)
	}
	if got := BracketList([]string{"a", "b"}); got != "[a,b]" {
		t.Errorf("BracketList = %q, want [a,b]", got)
	}
	if got := PortList([]int32{443, 8443}); got != "[443,8443]" {
		t.Errorf("PortList = %q", got)
	}
}
