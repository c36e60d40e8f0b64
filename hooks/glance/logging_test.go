package glance

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/ini.v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/release"
	"github.com/c5c3/glance-hooks/hooks/contract/storeconf"
	"github.com/c5c3/glance-hooks/hooks/glance/render"
)

// oslo.log 7.x's list as [DEFAULT] default_log_levels writes it, sorted.
const osloLog7Sorted = "amqp=WARN,amqplib=WARN,boto=WARN,dogpile.core.dogpile=INFO,iso8601=WARN,keystoneauth=WARN," +
	"keystonemiddleware=WARN,oslo.cache=INFO,oslo.messaging=INFO,oslo_messaging=INFO,oslo_policy=INFO,qpid=WARN," +
	"requests.packages.urllib3.connectionpool=WARN,requests.packages.urllib3.util.retry=WARN,routes.middleware=WARN," +
	"sqlalchemy=WARN,stevedore=WARN,suds=INFO,taskflow=WARN,urllib3.connectionpool=WARN,urllib3.util.retry=WARN,websocket=WARN"

func TestDefaultLogLevels(t *testing.T) {
	r := func(y, m int) release.Release { return release.Release{Year: y, Minor: m} }
	cases := map[string]struct {
		reason string
		rel    release.Release
		user   map[string]string
		want   string
	}{
		"a logger of its own": {"oslo.log's list stays, the user's logger joins it in order", r(2025, 2),
			map[string]string{"glance.api": "DEBUG"}, strings.Replace(osloLog7Sorted, "dogpile.core.dogpile=INFO,", "dogpile.core.dogpile=INFO,glance.api=DEBUG,", 1)},
		"the user wins": {"a logger oslo.log names takes the user's level", r(2025, 1),
			map[string]string{"keystonemiddleware": "DEBUG", "sqlalchemy": "ERROR"},
			strings.NewReplacer("keystonemiddleware=WARN", "keystonemiddleware=DEBUG", "sqlalchemy=WARN", "sqlalchemy=ERROR").Replace(osloLog7Sorted)},
		"a child of a default": {"a child logger is a logger of its own; its parent keeps oslo.log's level", r(2025, 2),
			map[string]string{"sqlalchemy.engine": "INFO"}, strings.Replace(osloLog7Sorted, "sqlalchemy=WARN,", "sqlalchemy=WARN,sqlalchemy.engine=INFO,", 1)},
		"2026.1": {"oslo.log 8 drops amqplib and qpid", r(2026, 1),
			map[string]string{"amqp": "ERROR"}, strings.NewReplacer("amqp=WARN", "amqp=ERROR", "amqplib=WARN,", "", "qpid=WARN,", "").Replace(osloLog7Sorted)},
		"a later release": {"takes the newest list known", r(2027, 2),
			map[string]string{"amqp": "WARN"}, strings.NewReplacer("amqplib=WARN,", "", "qpid=WARN,", "").Replace(osloLog7Sorted)},
	}
	for name, tc := range cases {
		got := defaultLogLevels(tc.rel, tc.user)
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: %s (-want +got):\n%s", name, tc.reason, diff)
		}
	}
}

func TestLoggingOptions(t *testing.T) {
	rel := release.Release{Year: 2025, Minor: 2}
	cases := map[string]struct {
		reason string
		l      *api.LoggingSpec
		want   []storeconf.Option
	}{
		"unset": {"oslo.log's defaults hold", nil, nil},
		"text, levels": {"text mode writes the merged list", &api.LoggingSpec{Level: api.DefaultLogLevel, PerLoggerLevels: map[string]string{"glance": "DEBUG"}},
			[]storeconf.Option{{Key: "debug", Value: "false"}, {Key: "default_log_levels", Value: defaultLogLevels(rel, map[string]string{"glance": "DEBUG"})}}},
		"text, no levels": {"oslo.log's own list stands, unwritten", &api.LoggingSpec{Level: api.DefaultLogLevel},
			[]storeconf.Option{{Key: "debug", Value: "false"}}},
		"json": {"a logging config of its own, where default_log_levels is not read", &api.LoggingSpec{Format: api.LogFormatJSON, Level: api.DefaultLogLevel, PerLoggerLevels: map[string]string{"glance": "DEBUG"}},
			[]storeconf.Option{{Key: "debug", Value: "false"}, {Key: "log_config_append", Value: render.ConfigDir + "/" + LoggingFile}}},
	}
	for name, tc := range cases {
		if diff := cmp.Diff(tc.want, loggingOptions(tc.l, rel)); diff != "" {
			t.Errorf("%s: %s (-want +got):\n%s", name, tc.reason, diff)
		}
	}
}

// With a logging config oslo.log's defaults are written as loggers of it,
// none more verbose than the root; the user's levels as given.
func TestConfigLogLevels(t *testing.T) {
	rel := release.Release{Year: 2025, Minor: 2}
	cases := map[string]struct {
		reason    string
		root      string
		user      map[string]string
		want      map[string]string // a sample of the loggers
		wantCount int
	}{
		"InfoRoot": {reason: "under an INFO root oslo.log's defaults hold as they are",
			root: "INFO", want: map[string]string{"keystonemiddleware": "WARN", "oslo_policy": "INFO", "sqlalchemy": "WARN"}, wantCount: 22},
		"DebugRoot": {reason: "debug still keeps the chatty libraries at their defaults, as oslo.log does",
			root: "DEBUG", want: map[string]string{"keystonemiddleware": "WARN", "oslo.cache": "INFO"}, wantCount: 22},
		"ErrorRoot": {reason: "a default never makes a logger louder than the root",
			root: "ERROR", want: map[string]string{"keystonemiddleware": "ERROR", "oslo_policy": "ERROR"}, wantCount: 22},
		"UserWins": {reason: "a level the user sets is written as given, even louder than the root",
			root: "WARNING", user: map[string]string{"keystonemiddleware": "DEBUG", "glance.api": "INFO"},
			want: map[string]string{"keystonemiddleware": "DEBUG", "glance.api": "INFO", "sqlalchemy": "WARN", "oslo_policy": "WARNING"}, wantCount: 23},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := configLogLevels(rel, tc.root, tc.user)
			assert.Len(t, got, tc.wantCount, tc.reason)
			for logger, level := range tc.want {
				assert.Equal(t, level, got[logger], "%s: %s", tc.reason, logger)
			}
		})
	}
}

func TestLoggingConfigWritesTheDefaults(t *testing.T) {
	conf := renderLoggingConfig(api.LoggingSpec{Format: api.LogFormatJSON, Level: "WARNING"}, release.Release{Year: 2026, Minor: 1})
	f, err := ini.Load([]byte(conf))
	require.NoError(t, err)
	levels := map[string]string{}
	for _, s := range f.Sections() {
		if q := s.Key("qualname").String(); q != "" {
			levels[q] = s.Key("level").String()
		}
	}
	assert.Equal(t, "WARN", levels["keystonemiddleware"], "keystonemiddleware at oslo.log's default")
	assert.Equal(t, "WARNING", levels["oslo_policy"], "an INFO default raised to the root's WARNING")
	assert.NotContains(t, levels, "qpid", "2026.1's oslo.log no longer names qpid")
	assert.Equal(t, "WARNING", f.Section("logger_root").Key("level").String())
	assert.Equal(t, "oslo_log.formatters.JSONFormatter", f.Section("formatter_oslo").Key("class").String())
}
