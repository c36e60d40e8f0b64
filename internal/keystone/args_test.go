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
