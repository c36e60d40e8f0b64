package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	reg "github.com/c5c3/glance-hooks/hooks/contract/registration"
)

// What the ControlPlane hook renders as a Job's args must parse back into
// the same registration: the flag names have one home, this proves the
// command still reads every one of them.
func TestRenderedArgsParseBack(t *testing.T) {
	want := reg.Spec{Owner: "ns/cp", User: "u", UserDomain: "D1", Project: "p", ProjectDomain: "D2", Role: "r",
		ServiceName: "s", ServiceType: "t", Region: "R", PublicURL: "http://pub:9292", InternalURL: "http://int:9292", PasswordSecret: "sec"}
	args := want.Args()
	require.Equal(t, []string{reg.Command, reg.CommandRegister}, args[:2])
	cmd := newKeystoneRegisterCommand()
	require.NoError(t, cmd.ParseFlags(args[2:]))
	got := reg.Spec{}
	for name, into := range map[string]*string{reg.FlagOwner: &got.Owner, reg.FlagUser: &got.User, reg.FlagUserDomain: &got.UserDomain,
		reg.FlagProject: &got.Project, reg.FlagProjectDomain: &got.ProjectDomain, reg.FlagRole: &got.Role, reg.FlagServiceName: &got.ServiceName,
		reg.FlagServiceType: &got.ServiceType, reg.FlagRegion: &got.Region, reg.FlagPublicURL: &got.PublicURL, reg.FlagInternalURL: &got.InternalURL,
		reg.FlagPasswordFrom: &got.PasswordSecret} {
		v, err := cmd.Flags().GetString(name)
		require.NoError(t, err, name)
		*into = v
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("register args did not parse back: -want, +got:\n%s", diff)
	}

	want = reg.Spec{Deregister: true, Owner: "ns/cp", ServiceName: "s", ServiceType: "t"}
	args = want.Args()
	require.Equal(t, []string{reg.Command, reg.CommandDeregister}, args[:2])
	cmd = newKeystoneDeregisterCommand()
	require.NoError(t, cmd.ParseFlags(args[2:]))
	for name, v := range map[string]string{reg.FlagOwner: "ns/cp", reg.FlagServiceName: "s", reg.FlagServiceType: "t"} {
		got, err := cmd.Flags().GetString(name)
		require.NoError(t, err)
		require.Equal(t, v, got, name)
	}
}

func TestKeystoneWithoutSecretsExitsRefusedNamingWhatIsMissing(t *testing.T) {
	t.Setenv(reg.EnvServiceUserPassword, "")
	code, _, stderr := runCLI(t, "keystone", "register", "--owner=ns/cp", "--public-url=http://a:1", "--internal-url=http://a:1")
	require.Equal(t, reg.ExitRefused, code)
	require.Contains(t, stderr, "SERVICE_USER_PASSWORD is not set")
	t.Setenv(reg.EnvServiceUserPassword, "pw")
	for _, k := range append(reg.RequiredAdminKeys, reg.OptionalAdminKeys...) {
		t.Setenv(k, "")
	}
	code, _, stderr = runCLI(t, "keystone", "register", "--owner=ns/cp", "--public-url=http://a:1", "--internal-url=http://a:1")
	require.Equal(t, reg.ExitRefused, code)
	require.Contains(t, stderr, "the admin credentials lack OS_AUTH_URL, OS_USERNAME, OS_PASSWORD, OS_PROJECT_NAME")
	code, _, stderr = runCLI(t, "keystone", "deregister")
	require.Equal(t, exitUsage, code)
	require.Contains(t, stderr, "--owner is required")
}

func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := execute(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}
