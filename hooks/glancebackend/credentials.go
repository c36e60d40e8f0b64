package glancebackend

import (
	"encoding/base64"
	"fmt"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/inivalue"
	"github.com/c5c3/glance-hooks/hooks/contract/storeconf"
)

// rawSecret is a Secret with its data still base64, so one undecodable key
// is reported as such instead of failing the whole request.
type rawSecret struct {
	Data map[string]string `json:"data"`
}

// checkCredentials reads the two fixed keys of the credentials Secret. The
// condition's message names the Secret and the key, never a value.
func checkCredentials(secret rawSecret, found bool, name string) (storeconf.Credentials, hook.Condition) {
	c := hook.Condition{Type: CondCredentialsReady, Reason: ReasonWaitingForCredentials}
	if !found {
		c.Message = fmt.Sprintf("credentials Secret %q not found", name)
		return storeconf.Credentials{}, c
	}
	values := map[string]string{}
	for _, key := range []string{api.AccessKeyIDKey, api.SecretAccessKeyKey} {
		enc, ok := secret.Data[key]
		if !ok {
			c.Message = fmt.Sprintf("credentials Secret %q has no %s key", name, key)
			return storeconf.Credentials{}, c
		}
		dec, err := base64.StdEncoding.DecodeString(enc)
		if err != nil {
			c.Reason = ReasonInvalidCredentials
			c.Message = fmt.Sprintf("credentials Secret %q key %s is not valid base64", name, key)
			return storeconf.Credentials{}, c
		}
		if len(dec) == 0 {
			c.Message = fmt.Sprintf("credentials Secret %q key %s is empty", name, key)
			return storeconf.Credentials{}, c
		}
		if p := inivalue.ValueProblem(string(dec)); p != "" {
			c.Reason = ReasonInvalidCredentials
			c.Message = fmt.Sprintf("credentials Secret %q key %s %s, which would break the store config; "+
				"write the value without it (a trailing newline often comes from echo or a file)", name, key, p)
			return storeconf.Credentials{}, c
		}
		values[key] = string(dec)
	}
	c.Status, c.Reason = true, ReasonCredentialsAvailable
	c.Message = fmt.Sprintf("credentials Secret %q carries %s and %s", name, api.AccessKeyIDKey, api.SecretAccessKeyKey)
	return storeconf.Credentials{AccessKeyID: values[api.AccessKeyIDKey], SecretAccessKey: values[api.SecretAccessKeyKey]}, c
}
