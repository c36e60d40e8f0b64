package glancebackend

import (
	"encoding/base64"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/storeconf"
)

func TestCheckCredentials(t *testing.T) {
	b64 := base64.StdEncoding.EncodeToString
	secret := func(data map[string]string) rawSecret { return rawSecret{Data: data} }
	good := map[string]string{"access-key-id": b64([]byte("AKID")), "secret-access-key": b64([]byte("se$cret"))}
	with := func(key, value string) map[string]string {
		d := map[string]string{}
		for k, v := range good {
			d[k] = v
		}
		d[key] = value
		return d
	}
	type args struct {
		secret rawSecret
		found  bool
	}
	type want struct {
		creds storeconf.Credentials
		cond  hook.Condition
	}
	waiting := func(msg string) want {
		return want{cond: hook.Condition{Type: CondCredentialsReady, Reason: ReasonWaitingForCredentials, Message: msg}}
	}
	invalid := func(msg string) want {
		return want{cond: hook.Condition{Type: CondCredentialsReady, Reason: ReasonInvalidCredentials, Message: msg}}
	}
	cases := map[string]struct {
		reason string
		args   args
		want   want
	}{
		"Available": {
			reason: "both fixed keys, non-empty and safe, give the credentials",
			args:   args{secret: secret(good), found: true},
			want: want{
				creds: storeconf.Credentials{AccessKeyID: "AKID", SecretAccessKey: "se$cret"},
				cond: hook.Condition{Type: CondCredentialsReady, Status: true, Reason: ReasonCredentialsAvailable,
					Message: `credentials Secret "creds" carries access-key-id and secret-access-key`},
			},
		},
		"Absent": {
			reason: "a Secret that does not exist yet is waited for",
			args:   args{},
			want:   waiting(`credentials Secret "creds" not found`),
		},
		"KeyMissing": {
			reason: "a missing key is waited for, naming the key",
			args:   args{secret: secret(map[string]string{"access-key-id": good["access-key-id"]}), found: true},
			want:   waiting(`credentials Secret "creds" has no secret-access-key key`),
		},
		"Empty": {
			reason: "an empty value is waited for like a missing one",
			args:   args{secret: secret(with("access-key-id", "")), found: true},
			want:   waiting(`credentials Secret "creds" key access-key-id is empty`),
		},
		"NotBase64": {
			reason: "data that is not base64 is invalid, not waited for",
			args:   args{secret: secret(with("access-key-id", "%%%")), found: true},
			want:   invalid(`credentials Secret "creds" key access-key-id is not valid base64`),
		},
		"TrailingNewline": {
			reason: "a value that would break the store config is refused, naming the key and the problem, never the value",
			args:   args{secret: secret(with("secret-access-key", b64([]byte("s3cret\n")))), found: true},
			want: invalid(`credentials Secret "creds" key secret-access-key contains a newline, which would break the store config; ` +
				"write the value without it (a trailing newline often comes from echo or a file)"),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			creds, cond := checkCredentials(tc.args.secret, tc.args.found, "creds")
			if diff := cmp.Diff(tc.want, want{creds: creds, cond: cond}, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\ncheckCredentials(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
