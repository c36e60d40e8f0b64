package main

import (
	"net"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	reg "github.com/c5c3/glance-hooks/hooks/contract/registration"
)

// keystoneStandIn listens where Keystone would and counts the connections
// made to it; nothing answers them.
func keystoneStandIn(t *testing.T) (url string, conns *atomic.Int32) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	conns = &atomic.Int32{}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			c.Close()
		}
	}()
	return "http://" + ln.Addr().String() + "/v3", conns
}

// keystone register checks every argument before it calls Keystone: a bad
// one is a usage error naming its flag, and Keystone is never contacted.
func TestKeystoneRegisterChecksItsArgumentsFirst(t *testing.T) {
	url, conns := keystoneStandIn(t)
	t.Setenv(reg.EnvAuthURL, url)
	t.Setenv(reg.EnvUsername, "admin")
	t.Setenv(reg.EnvPassword, "admin-pw")
	t.Setenv(reg.EnvProjectName, "admin")
	t.Setenv(reg.EnvServiceUserPassword, "service-pw")
	good := []string{"keystone", "register", "--owner=openstack/controlplane", "--public-url=https://glance.example.com", "--internal-url=http://glance:9292"}

	cases := map[string]struct {
		arg, flag string
	}{
		"a javascript: URL":          {"--public-url=javascript:alert(1)", reg.FlagPublicURL},
		"an ftp URL":                 {"--internal-url=ftp://glance:9292", reg.FlagInternalURL},
		"port 99999":                 {"--public-url=https://glance:99999", reg.FlagPublicURL},
		"user info with a password":  {"--internal-url=http://u:topsecret@glance:9292", reg.FlagInternalURL},
		"a control character":        {"--user=gl\x1bance", reg.FlagUser},
		"an owner that is not NS/NM": {"--owner=controlplane", reg.FlagOwner},
	}
	for name, tc := range cases {
		code, stdout, stderr := runCLI(t, append(append([]string{}, good...), tc.arg)...)
		assert.Equal(t, exitUsage, code, "%s: exit 2; stderr: %s", name, stderr)
		assert.Contains(t, stderr, "--"+tc.flag, "%s: the flag is named", name)
		assert.NotContains(t, stderr+stdout, "topsecret", "%s: no value that may hold a password is printed", name)
		assert.Zero(t, conns.Load(), "%s: nothing reached the listener standing in for Keystone", name)
	}
}
