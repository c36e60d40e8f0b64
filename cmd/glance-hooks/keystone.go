package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/c5c3/glance-hooks/cmd/glance-hooks/keystone"
	reg "github.com/c5c3/glance-hooks/hooks/contract/registration"
)

// flagCACert names the CA bundle of an https Keystone; it wins over
// OS_CACERT.
const flagCACert = "os-cacert"

// keystoneTimeout bounds a whole run; a Job retries a run that timed out.
const keystoneTimeout = 3 * time.Minute

func newKeystoneCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   reg.Command + " (register | deregister) [flags]",
		Short: "Register a ControlPlane's Glance in Keystone, or remove what it registered",
		Long: `The ControlPlane's registration Jobs run these: register makes Keystone hold
the service user (with its role on its project), the image service and its
endpoints, changing only what differs; deregister removes the endpoints and
the service the same owner created.

Secrets come from the environment only, never from flags: the admin as an
operator's admin exports set it (` + reg.EnvAuthURL + `, ` + reg.EnvUsername + `, ` + reg.EnvPassword + `,
` + reg.EnvProjectName + `, optionally ` + reg.EnvUserDomainName + ` and ` + reg.EnvProjectDomainName + ` or their
*_ID forms; the domains default to Default), and the service user's password
as ` + reg.EnvServiceUserPassword + `.

Each change is printed on stdout. Exit 0 when Keystone matches, 1 on a
failure worth retrying (Keystone unreachable, an answer 5xx), 3 when Keystone
refused (bad admin credentials, missing rights, a user whose password the
Secret does not hold); the error is the last line on stderr.`,
	}
	cmd.PersistentFlags().String(flagCACert, "", "PEM CA bundle an https "+reg.EnvAuthURL+" is checked against (default: "+reg.EnvCACert+", a path or the PEM itself; else the system's roots)")
	cmd.AddCommand(newKeystoneRegisterCommand(), newKeystoneDeregisterCommand())
	return groupCommand(cmd)
}

func newKeystoneRegisterCommand() *cobra.Command {
	var s reg.Spec
	cmd := &cobra.Command{
		Use:     reg.CommandRegister + " --" + reg.FlagOwner + " NAMESPACE/NAME --" + reg.FlagPublicURL + " URL --" + reg.FlagInternalURL + " URL [flags]",
		Short:   "Register the service user, the image service and its endpoints",
		Args:    noArgs,
		PreRunE: requireFlags(reg.FlagOwner, reg.FlagPublicURL, reg.FlagInternalURL),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runKeystone(cmd, s, func(ctx context.Context, c *keystone.Client, password string) (keystone.Report, error) {
				return c.Register(ctx, keystone.Registration{
					Owner: s.Owner,
					User: keystone.ServiceUser{Name: s.User, Domain: s.UserDomain, Project: s.Project, ProjectDomain: s.ProjectDomain,
						Role: s.Role, Password: password, PasswordSecret: s.PasswordSecret},
					ServiceName: s.ServiceName, ServiceType: s.ServiceType, Region: s.Region,
					Endpoints: []keystone.Endpoint{{Interface: "public", URL: s.PublicURL}, {Interface: "internal", URL: s.InternalURL}},
				})
			}, fmt.Sprintf("registered: user %q with role %q on project %q, service %q of type %q with public and internal endpoints in region %q",
				s.User, s.Role, s.Project, s.ServiceName, s.ServiceType, s.Region))
		},
	}
	f := cmd.Flags()
	f.StringVar(&s.Owner, reg.FlagOwner, "", "NAMESPACE/NAME of the ControlPlane; marks what this run creates")
	f.StringVar(&s.User, reg.FlagUser, "glance", "the service user")
	f.StringVar(&s.UserDomain, reg.FlagUserDomain, keystone.DefaultDomain, "the service user's domain (name)")
	f.StringVar(&s.Project, reg.FlagProject, "service", "the service user's project, created when missing")
	f.StringVar(&s.ProjectDomain, reg.FlagProjectDomain, keystone.DefaultDomain, "the project's domain (name)")
	f.StringVar(&s.Role, reg.FlagRole, "service", "the role the user gets on the project, created when missing")
	f.StringVar(&s.ServiceName, reg.FlagServiceName, "glance", "the catalog service's name")
	f.StringVar(&s.ServiceType, reg.FlagServiceType, "image", "the catalog service's type")
	f.StringVar(&s.Region, reg.FlagRegion, "RegionOne", "the endpoints' region, created when missing")
	f.StringVar(&s.PublicURL, reg.FlagPublicURL, "", "the public endpoint's URL")
	f.StringVar(&s.InternalURL, reg.FlagInternalURL, "", "the internal endpoint's URL")
	f.StringVar(&s.PasswordSecret, reg.FlagPasswordFrom, "glance-service-user", "the Secret "+reg.EnvServiceUserPassword+" comes from, named in messages")
	return cmd
}

func newKeystoneDeregisterCommand() *cobra.Command {
	s := reg.Spec{Deregister: true}
	cmd := &cobra.Command{
		Use:   reg.CommandDeregister + " --" + reg.FlagOwner + " NAMESPACE/NAME [flags]",
		Short: "Remove the endpoints and the service the owner registered",
		Long: `Removes the endpoints of the service that the owner created, then the service
when the owner created it and no other endpoint is left on it. The user, its
role assignment, the project and the role stay.`,
		Args:    noArgs,
		PreRunE: requireFlags(reg.FlagOwner),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runKeystone(cmd, s, func(ctx context.Context, c *keystone.Client, _ string) (keystone.Report, error) {
				return c.Deregister(ctx, keystone.Deregistration{Owner: s.Owner, ServiceName: s.ServiceName, ServiceType: s.ServiceType})
			}, fmt.Sprintf("deregistered: nothing of %s is left on service %q of type %q", s.Owner, s.ServiceName, s.ServiceType))
		},
	}
	f := cmd.Flags()
	f.StringVar(&s.Owner, reg.FlagOwner, "", "NAMESPACE/NAME of the ControlPlane whose objects are removed")
	f.StringVar(&s.ServiceName, reg.FlagServiceName, "glance", "the catalog service's name")
	f.StringVar(&s.ServiceType, reg.FlagServiceType, "image", "the catalog service's type")
	return cmd
}

// runKeystone checks every argument and environment value s's run sends
// (a usage error, exit 2, before anything is dialled), connects as the
// admin of the environment, runs do with the service user's password (a
// registration's), prints each change and then done. A refusal exits 3,
// any other failure 1.
func runKeystone(cmd *cobra.Command, s reg.Spec, do func(context.Context, *keystone.Client, string) (keystone.Report, error), done string) error {
	if err := keystone.CheckInput(s, os.Getenv); err != nil {
		return usageErrorf("%s", err)
	}
	password, err := servicePassword(s)
	if err != nil {
		return err
	}
	admin, err := keystone.AdminFromEnv(os.Getenv)
	if err != nil {
		return keystoneExit(err)
	}
	if file, _ := cmd.Flags().GetString(flagCACert); file != "" {
		if admin.CACert, err = keystone.CACertFrom(file, "--"+flagCACert); err != nil {
			return keystoneExit(err)
		}
	}
	ctx, cancel := context.WithTimeout(cmd.Context(), keystoneTimeout)
	defer cancel()
	client, err := keystone.Connect(ctx, admin, password)
	if err != nil {
		return keystoneExit(err)
	}
	report, err := do(ctx, client, password)
	out := cmd.OutOrStdout()
	for _, line := range report {
		fmt.Fprintln(out, line)
	}
	if err != nil {
		return keystoneExit(err)
	}
	if len(report) == 0 {
		fmt.Fprintln(out, "Keystone already matched: nothing changed")
	}
	fmt.Fprintln(out, done)
	return nil
}

// servicePassword is the service user's password a registration sends
// (missing: exit 3, the Secret named); a deregistration sends none.
func servicePassword(s reg.Spec) (string, error) {
	if s.Deregister {
		return "", nil
	}
	password := os.Getenv(reg.EnvServiceUserPassword)
	if password == "" {
		return "", &exitError{code: reg.ExitRefused, err: fmt.Errorf("%s is not set: the service user's password comes from Secret %q", reg.EnvServiceUserPassword, s.PasswordSecret)}
	}
	return password, nil
}

func keystoneExit(err error) error {
	if keystone.IsRefused(err) {
		return &exitError{code: reg.ExitRefused, err: err}
	}
	return err
}
