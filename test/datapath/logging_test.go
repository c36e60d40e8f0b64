package datapath

import (
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/test/glancestack"
	"github.com/c5c3/glance-hooks/test/services"
)

// textLogLevels proves spec.logging.perLoggerLevels in text mode on a real
// glance-api: a logger set to DEBUG logs at DEBUG, while the loggers
// oslo.log quiets by default stay quiet (keystonemiddleware at WARN: its
// INFO records, "Starting Keystone auth_token middleware" and a rejected
// token-less request, are not written). Then the operator's level for
// keystonemiddleware wins over oslo.log's, and those INFO records are
// written: so their absence before is oslo.log's default kept, not a
// logger that never logs.
func textLogLevels(t *testing.T, st *glancestack.Stack, kc *services.Keystone, reader services.Credentials) {
	const versions = "glance.api.middleware.version_negotiation"
	run := func(t *testing.T, levels map[string]string) map[string]map[string]int {
		st.Respec(t, func(s *api.GlanceSpec) {
			s.Logging = &api.LoggingSpec{Level: api.DefaultLogLevel, PerLoggerLevels: levels}
		})
		st.Reconcile(t)
		conf := st.ConfigMapData(t, mustConfigMap(t, st))[names.ConfigFile]
		require.NotContains(t, conf, "log_config_append", "text mode at INFO needs no logging config")
		c := asReaderOn(t, st, kc, reader)
		code, body := c.Call(t, http.MethodGet, "/v2/images", nil, nil)
		require.Equal(t, http.StatusOK, code, "%s", body)
		anon := &glancestack.Client{URL: c.URL}
		code, body = anon.Call(t, http.MethodGet, "/v2/images", nil, nil)
		require.Equal(t, http.StatusUnauthorized, code, "a request without a token is rejected: %s", body)
		pod := onlyPod(t, st)
		return textRecords(pod.Logs(pod.Container))
	}

	quiet := run(t, map[string]string{versions: "DEBUG"})
	assert.NotZero(t, quiet["DEBUG"][versions], "the logger set to DEBUG logs at DEBUG")
	for _, level := range []string{"DEBUG", "INFO"} {
		for name := range quiet[level] {
			assert.False(t, strings.HasPrefix(name, "keystonemiddleware"), "%s logs at %s: oslo.log's keystonemiddleware=WARN was dropped", name, level)
			if level == "DEBUG" {
				assert.Equal(t, versions, name, "no other logger logs at DEBUG under root INFO")
			}
		}
	}
	t.Logf("oslo.log's defaults kept: %d DEBUG records of %s, INFO from %v", quiet["DEBUG"][versions], versions, slices.Sorted(maps.Keys(quiet["INFO"])))

	loud := run(t, map[string]string{versions: "DEBUG", "keystonemiddleware": "INFO"})
	assert.NotZero(t, loud["INFO"]["keystonemiddleware.auth_token"], "the operator's keystonemiddleware=INFO wins over oslo.log's WARN")
	t.Logf("keystonemiddleware at INFO: %d INFO records of keystonemiddleware.auth_token", loud["INFO"]["keystonemiddleware.auth_token"])
	st.Respec(t, nil)
	st.Reconcile(t)
}

// textRecords counts the records of oslo.log's text format by level and
// logger: "<date> <time> <pid> <LEVEL> <logger> [...] <message>".
func textRecords(log string) map[string]map[string]int {
	out := map[string]map[string]int{}
	for _, line := range strings.Split(log, "\n") {
		f := strings.Fields(line)
		if len(f) < 5 || !slices.Contains([]string{"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"}, f[3]) {
			continue
		}
		if out[f[3]] == nil {
			out[f[3]] = map[string]int{}
		}
		out[f[3]][f[4]]++
	}
	return out
}
