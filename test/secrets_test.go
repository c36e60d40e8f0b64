package test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/test/services"
)

// secretDataKeys are Secret keys whose values are credentials.
var secretDataKeys = map[string]bool{"access-key-id": true, "secret-access-key": true, "password": true, "connection": true}

// secretOptionLine finds credential options inside rendered store sections.
var secretOptionLine = regexp.MustCompile(`(?m)^s3_store_(?:access|secret)_key = (.+)$`)

// credentialValues collects every credential value a request carries: the
// credentials Secrets' data and the keys inside rendered store sections.
func credentialValues(t *testing.T, request []byte) []string {
	var values []string
	var walk func(v any)
	walk = func(v any) {
		switch o := v.(type) {
		case map[string]any:
			if o["kind"] == "Secret" {
				data, _ := o["data"].(map[string]any)
				for k, enc := range data {
					s, _ := enc.(string)
					dec, err := base64.StdEncoding.DecodeString(s)
					if err != nil {
						continue
					}
					if secretDataKeys[k] {
						values = append(values, string(dec))
					}
					for _, m := range secretOptionLine.FindAllStringSubmatch(string(dec), -1) {
						values = append(values, strings.ReplaceAll(m[1], "$$", "$"))
					}
				}
			}
			for _, child := range o {
				walk(child)
			}
		case []any:
			for _, child := range o {
				walk(child)
			}
		}
	}
	var body any
	if json.Unmarshal(request, &body) != nil {
		return nil
	}
	walk(body)
	var long []string
	for _, v := range values {
		if len(strings.TrimSpace(v)) >= 6 { // shorter strings match by chance
			long = append(long, v)
		}
	}
	return long
}

// withoutSecrets drops Secret objects from an answer; everything else
// (status, ConfigMaps, Deployments, errors) must be free of credentials.
func withoutSecrets(v any) any {
	switch o := v.(type) {
	case map[string]any:
		if o["kind"] == "Secret" {
			return "<Secret>"
		}
		out := map[string]any{}
		for k, child := range o {
			out[k] = withoutSecrets(child)
		}
		return out
	case []any:
		out := make([]any, len(o))
		for i, child := range o {
			out[i] = withoutSecrets(child)
		}
		return out
	}
	return v
}

// TestNoCredentialOutsideSecrets runs every fixture and looks for each
// credential value, raw or base64 or config-escaped, in every non-Secret
// output: the answer without its Secret children, and the log lines.
func TestNoCredentialOutsideSecrets(t *testing.T) {
	checked := 0
	for _, dir := range fixtureCases(t) {
		request, err := os.ReadFile(filepath.Join(dir, "request.json"))
		require.NoError(t, err)
		values := credentialValues(t, request)
		if len(values) == 0 {
			continue
		}
		var logs bytes.Buffer
		h := newTestServer(t, &logs)
		rec := post(h, hookPath(filepath.Base(filepath.Dir(dir))), request)
		var answer any
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &answer), dir)
		public, err := json.Marshal(withoutSecrets(answer))
		require.NoError(t, err)
		outputs := string(public) + "\n" + logs.String()
		for _, v := range values {
			// Raw, base64, config-escaped, JSON-escaped, and percent-encoded
			// as in the database URL.
			for _, form := range []string{v, base64.StdEncoding.EncodeToString([]byte(v)), strings.ReplaceAll(v, "$", "$$"), jsonString(v), services.PercentEncode(v)} {
				require.NotContains(t, outputs, form, "%s: a credential reached a non-Secret output", dir)
			}
		}
		checked++
	}
	require.Greater(t, checked, 5, "too few fixtures carry credentials for this test to mean anything")
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return strings.Trim(string(b), `"`)
}
