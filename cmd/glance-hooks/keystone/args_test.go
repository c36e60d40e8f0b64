package keystone

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	reg "github.com/c5c3/glance-hooks/hooks/contract/registration"
)

func goodSpec() reg.Spec {
	return reg.Spec{Owner: "openstack/controlplane", User: "glance", UserDomain: "Default", Project: "service", ProjectDomain: "Default",
		Role: "service", ServiceName: "glance", ServiceType: "image", Region: "RegionOne",
		PublicURL: "https://glance.example.com", InternalURL: "http://controlplane-glance.openstack.svc:9292", PasswordSecret: "glance-service-user"}
}

func TestCheckRegistration(t *testing.T) {
	assert.NoError(t, CheckRegistration(goodSpec()), "the guide's registration")

	cases := map[string]struct {
		edit func(*reg.Spec)
		flag string
	}{
		"a javascript: URL":        {func(s *reg.Spec) { s.PublicURL = "javascript:alert(1)" }, reg.FlagPublicURL},
		"an ftp URL":               {func(s *reg.Spec) { s.InternalURL = "ftp://glance:9292" }, reg.FlagInternalURL},
		"port 99999":               {func(s *reg.Spec) { s.PublicURL = "https://glance:99999" }, reg.FlagPublicURL},
		"port 0":                   {func(s *reg.Spec) { s.PublicURL = "https://glance:0" }, reg.FlagPublicURL},
		"user info with password":  {func(s *reg.Spec) { s.InternalURL = "http://admin:hunter2@glance:9292" }, reg.FlagInternalURL},
		"no host":                  {func(s *reg.Spec) { s.PublicURL = "https:///v2" }, reg.FlagPublicURL},
		"a newline in a URL":       {func(s *reg.Spec) { s.PublicURL = "https://glance\n.example.com" }, reg.FlagPublicURL},
		"a control char in a user": {func(s *reg.Spec) { s.User = "gla\x1bnce" }, reg.FlagUser},
		"a NUL in a role":          {func(s *reg.Spec) { s.Role = "ser\x00vice" }, reg.FlagRole},
		"a newline in a region":    {func(s *reg.Spec) { s.Region = "Region\nOne" }, reg.FlagRegion},
		"an empty project":         {func(s *reg.Spec) { s.Project = "" }, reg.FlagProject},
		"a blank domain":           {func(s *reg.Spec) { s.UserDomain = " Default" }, reg.FlagUserDomain},
		"a long service type":      {func(s *reg.Spec) { s.ServiceType = strings.Repeat("i", 256) }, reg.FlagServiceType},
		"not UTF-8":                {func(s *reg.Spec) { s.ServiceName = "gl\xffance" }, reg.FlagServiceName},
		"an owner without a /":     {func(s *reg.Spec) { s.Owner = "controlplane" }, reg.FlagOwner},
		"an owner with two /":      {func(s *reg.Spec) { s.Owner = "a/b/c" }, reg.FlagOwner},
		"an owner in capitals":     {func(s *reg.Spec) { s.Owner = "OpenStack/cp" }, reg.FlagOwner},
		"an owner without a name":  {func(s *reg.Spec) { s.Owner = "openstack/" }, reg.FlagOwner},
		"an owner with a newline":  {func(s *reg.Spec) { s.Owner = "openstack/cp\n" }, reg.FlagOwner},
		"a control char in secret": {func(s *reg.Spec) { s.PasswordSecret = "x\x07" }, reg.FlagPasswordFrom},
	}
	for name, tc := range cases {
		s := goodSpec()
		tc.edit(&s)
		err := CheckRegistration(s)
		var ae *ArgError
		if !assert.True(t, errors.As(err, &ae), "%s: refused with an *ArgError, got %v", name, err) {
			continue
		}
		assert.Equal(t, tc.flag, ae.Flag, name)
		assert.True(t, strings.HasPrefix(err.Error(), "--"+tc.flag+" "), "%s: the message names the flag: %s", name, err)
		assert.NotContains(t, err.Error(), "hunter2", "%s: no value is repeated", name)
	}
}

// A deregistration sends the owner, the service's name and its type: those
// are checked as a registration's are, and nothing it does not send.
func TestCheckDeregistration(t *testing.T) {
	good := reg.Spec{Deregister: true, Owner: "openstack/controlplane", ServiceName: "glance", ServiceType: "image"}
	assert.NoError(t, CheckRegistration(good), "the flags a deregistration Job is rendered with; the others are not sent")

	cases := map[string]struct {
		reason string
		edit   func(*reg.Spec)
		flag   string
	}{
		"owner":     {"the owner endpoints are matched by", func(s *reg.Spec) { s.Owner = "OpenStack/cp" }, reg.FlagOwner},
		"owner ESC": {"an escape in the owner", func(s *reg.Spec) { s.Owner = "openstack/cp\x1b" }, reg.FlagOwner},
		"name":      {"a line separator in the service's name", func(s *reg.Spec) { s.ServiceName = "gl\u2028ance" }, reg.FlagServiceName},
		"type":      {"an empty service type", func(s *reg.Spec) { s.ServiceType = "" }, reg.FlagServiceType},
	}
	for name, tc := range cases {
		s := good
		tc.edit(&s)
		var ae *ArgError
		if assert.ErrorAs(t, CheckRegistration(s), &ae, "%s: %s", name, tc.reason) {
			assert.Equal(t, tc.flag, ae.Flag, "%s: %s", name, tc.reason)
		}
	}
}

func TestCheckInputEnvironment(t *testing.T) {
	env := map[string]string{
		reg.EnvAuthURL: "https://keystone.example:5000/v3", reg.EnvUsername: "admin", reg.EnvPassword: " pass word ",
		reg.EnvProjectName: "admin", reg.EnvServiceUserPassword: "service-pw",
		reg.EnvCACert: "-----BEGIN CERTIFICATE-----\nspans lines\n-----END CERTIFICATE-----\n",
	}
	getenv := func(extra map[string]string) func(string) string {
		return func(k string) string {
			if v, ok := extra[k]; ok {
				return v
			}
			return env[k]
		}
	}
	assert.NoError(t, CheckInput(goodSpec(), getenv(nil)), "blanks in a password are the password's; OS_CACERT is read, never sent")

	cases := map[string]struct {
		reason, key, value string
		deregister         bool
		want               string
	}{
		"admin password":    {"a newline", reg.EnvPassword, "hunter2\n", false, "OS_PASSWORD contains a newline"},
		"user domain":       {"NEL, a C1 control", reg.EnvUserDomainName, "Def\u0085ault", true, "OS_USER_DOMAIN_NAME contains the control character U+0085"},
		"project domain ID": {"DEL", reg.EnvProjectDomainID, "default\x7f", false, "OS_PROJECT_DOMAIN_ID contains the control character U+007F"},
		"service password":  {"invalid UTF-8", reg.EnvServiceUserPassword, "hunter2\xc3", false, "SERVICE_USER_PASSWORD is not valid UTF-8"},
		"not sent":          {"deregister sends no service password", reg.EnvServiceUserPassword, "hunter2\n", true, ""},
	}
	for name, tc := range cases {
		s := goodSpec()
		s.Deregister = tc.deregister
		err := CheckInput(s, getenv(map[string]string{tc.key: tc.value}))
		if tc.want == "" {
			assert.NoError(t, err, "%s: %s", name, tc.reason)
			continue
		}
		var ee *EnvError
		if assert.ErrorAs(t, err, &ee, "%s: %s", name, tc.reason) {
			assert.Equal(t, tc.key, ee.Name, name)
			assert.Equal(t, tc.want, err.Error(), "%s: the variable and the problem, never the value", name)
		}
	}
}
