package main

import (
	"net"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	reg "github.com/c5c3/glance-hooks/hooks/contract/registration"
	"github.com/c5c3/glance-hooks/test/testcert"
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

// adminEnvFor sets a good environment for a run against url: the admin's
// credentials and the service user's password.
func adminEnvFor(t *testing.T, url string) {
	t.Setenv(reg.EnvAuthURL, url)
	t.Setenv(reg.EnvUsername, "admin")
	t.Setenv(reg.EnvPassword, "admin-pw")
	t.Setenv(reg.EnvProjectName, "admin")
	t.Setenv(reg.EnvServiceUserPassword, "service-pw")
}

// goodKeystoneArgs are the args of a run of command that would reach
// Keystone.
func goodKeystoneArgs(command string) []string {
	if command == reg.CommandDeregister {
		return []string{reg.Command, command, "--owner=openstack/controlplane"}
	}
	return []string{reg.Command, command, "--owner=openstack/controlplane", "--public-url=https://glance.example.com", "--internal-url=http://glance:9292"}
}

// keystone register checks every argument before it calls Keystone: a bad
// one is a usage error naming its flag, and Keystone is never contacted.
func TestKeystoneRegisterChecksItsArgumentsFirst(t *testing.T) {
	url, conns := keystoneStandIn(t)
	adminEnvFor(t, url)
	cases := map[string]struct {
		arg, flag string
	}{
		"a javascript: URL":          {"--public-url=javascript:alert(1)", reg.FlagPublicURL},
		"an ftp URL":                 {"--internal-url=ftp://glance:9292", reg.FlagInternalURL},
		"port 99999":                 {"--public-url=https://glance:99999", reg.FlagPublicURL},
		"user info with a password":  {"--internal-url=http://u:topsecret@glance:9292", reg.FlagInternalURL},
		"a line separator in a host": {"--public-url=https://glance\u2028topsecret.example", reg.FlagPublicURL},
		"a control character":        {"--user=gl\x1bance", reg.FlagUser},
		"a C1 control in a region":   {"--region=Region\u0085One", reg.FlagRegion},
		"an owner that is not NS/NM": {"--owner=controlplane", reg.FlagOwner},
	}
	for name, tc := range cases {
		code, stdout, stderr := runCLI(t, append(goodKeystoneArgs(reg.CommandRegister), tc.arg)...)
		assert.Equal(t, exitUsage, code, "%s: exit 2; stderr: %s", name, stderr)
		assert.Contains(t, stderr, "--"+tc.flag, "%s: the flag is named", name)
		assert.NotContains(t, stderr+stdout, "topsecret", "%s: no value that may hold a password is printed", name)
		assert.Zero(t, conns.Load(), "%s: nothing reached the listener standing in for Keystone", name)
	}
}

// Both commands refuse a malformed --owner the same way, before they dial:
// deregister matches endpoints by the owner it is given, so a value
// register would never have written must not reach Keystone either.
func TestKeystoneCommandsRefuseAMalformedOwnerBeforeDialling(t *testing.T) {
	url, conns := keystoneStandIn(t)
	adminEnvFor(t, url)
	owners := map[string]struct{ reason, owner string }{
		"no slash":          {"a name without its namespace", "controlplane"},
		"two slashes":       {"NAMESPACE/NAME has one", "openstack/cp/x"},
		"no namespace":      {"an empty namespace", "/cp"},
		"no name":           {"an empty name", "openstack/"},
		"capitals":          {"namespaces are lowercase", "OpenStack/cp"},
		"capital name":      {"object names are lowercase", "openstack/CP"},
		"underscore":        {"not in a DNS label", "open_stack/cp"},
		"long namespace":    {"a namespace is at most 63", strings.Repeat("n", 64) + "/cp"},
		"long name":         {"a name is at most 253", "openstack/" + strings.Repeat("c", 254)},
		"trailing newline":  {"a newline would split a log line", "openstack/cp\n"},
		"an escape":         {"ESC would drive a terminal", "openstack/cp\x1b[2J"},
		"a line separator":  {"U+2028 ends a line in YAML", "openstack/c\u2028p"},
		"invalid UTF-8":     {"a byte no reader agrees on", "openstack/c\xffp"},
		"a blank namespace": {"spaces are in no Kubernetes name", "open stack/cp"},
	}
	for _, command := range []string{reg.CommandRegister, reg.CommandDeregister} {
		for name, tc := range owners {
			args := append(goodKeystoneArgs(command), "--owner="+tc.owner)
			code, _, stderr := runCLI(t, args...)
			assert.Equal(t, exitUsage, code, "%s %s (%s): exit 2; stderr: %s", command, name, tc.reason, stderr)
			assert.Contains(t, stderr, "--"+reg.FlagOwner+" must be NAMESPACE/NAME", "%s %s: the flag is named", command, name)
		}
	}
	assert.Zero(t, conns.Load(), "nothing reached the listener standing in for Keystone")
}

// Every environment value a command sends is checked before it dials: a
// bad one is a usage error naming the variable, never its value. The last
// cases show the stand-in counts what does reach it.
func TestKeystoneCommandsCheckTheEnvironmentBeforeDialling(t *testing.T) {
	cases := map[string]struct {
		reason, key, value string
		command            string
		refused            bool
	}{
		"password newline":        {"a newline in the admin's password", reg.EnvPassword, "top\nsecret", reg.CommandRegister, true},
		"password ESC":            {"an escape sequence in the admin's password", reg.EnvPassword, "topsecret\x1b[2J", reg.CommandDeregister, true},
		"username C1":             {"U+0085 in the admin's name", reg.EnvUsername, "ad\u0085min-topsecret", reg.CommandRegister, true},
		"project LS":              {"U+2028 in the admin's project", reg.EnvProjectName, "adm\u2028in-topsecret", reg.CommandDeregister, true},
		"user domain DEL":         {"DEL in a domain name", reg.EnvUserDomainName, "Default\x7ftopsecret", reg.CommandRegister, true},
		"project domain ID tab":   {"a tab in a domain ID", reg.EnvProjectDomainID, "topsecret\tdefault", reg.CommandDeregister, true},
		"auth URL CR":             {"a carriage return in the auth URL", reg.EnvAuthURL, "", reg.CommandRegister, true},
		"service password UTF-8":  {"invalid UTF-8 in the service user's password", reg.EnvServiceUserPassword, "topsecret\xff", reg.CommandRegister, true},
		"service password PS":     {"U+2029 in the service user's password", reg.EnvServiceUserPassword, "top\u2029secret", reg.CommandRegister, true},
		"deregister sends none":   {"deregister never sends the service user's password", reg.EnvServiceUserPassword, "topsecret\n", reg.CommandDeregister, false},
		"a PEM is read, not sent": {"OS_CACERT spans lines and stays here", reg.EnvCACert, "", reg.CommandDeregister, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			url, conns := keystoneStandIn(t)
			adminEnvFor(t, url)
			value := tc.value
			if tc.key == reg.EnvAuthURL {
				value = url + "\r"
			}
			if tc.key == reg.EnvCACert {
				value = string(testcert.Fixed("keystone", 1).CertPEM)
			}
			t.Setenv(tc.key, value)
			code, stdout, stderr := runCLI(t, goodKeystoneArgs(tc.command)...)
			if !tc.refused {
				assert.NotEqual(t, exitUsage, code, "%s: not a usage error; stderr: %s", tc.reason, stderr)
				assert.Positive(t, conns.Load(), "%s: the run dialled the stand-in", tc.reason)
				return
			}
			assert.Equal(t, exitUsage, code, "%s: exit 2; stderr: %s", tc.reason, stderr)
			assert.Contains(t, stderr, ": "+tc.key+" ", "%s: the variable is named: %s", tc.reason, stderr)
			assert.NotContains(t, stderr+stdout, "topsecret", "%s: the value is not printed", tc.reason)
			assert.Zero(t, conns.Load(), "%s: nothing reached the listener standing in for Keystone", tc.reason)
		})
	}
}
