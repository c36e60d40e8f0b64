package glance

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/ini.v1"
	appsv1 "k8s.io/api/apps/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/contract/release"
	"github.com/c5c3/glance-hooks/hooks/glance/decide"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
	"github.com/c5c3/glance-hooks/hooks/glance/render"
	"github.com/c5c3/glance-hooks/hooks/glance/storestate"
)

func TestLaunchModeOf(t *testing.T) {
	cases := map[string]struct {
		reason string
		in     release.Release
		want   render.LaunchMode
	}{
		"2025.1": {"eventlet before 2026.1", release.Release{Year: 2025, Minor: 1}, render.Eventlet},
		"2025.2": {"the last eventlet release", release.Release{Year: 2025, Minor: 2}, render.Eventlet},
		"2026.1": {"Glance deprecated its eventlet server in 2026.1", release.Release{Year: 2026, Minor: 1}, render.UWSGI},
		"2027.2": {"and stays gone", release.Release{Year: 2027, Minor: 2}, render.UWSGI},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, tc.want, render.LaunchModeOf(tc.in), tc.reason)
		})
	}
}

func TestCommand(t *testing.T) {
	type want struct{ cmd, args []string }
	cases := map[string]struct {
		reason string
		mode   render.LaunchMode
		want   want
	}{
		"eventlet": {"glance-api's main reads glance-api.conf and the backends directory",
			render.Eventlet, want{[]string{"python3", "-c", render.EventletLauncher}, []string{"--config-file=/etc/glance/config/glance-api.conf", "--config-dir=/etc/glance/glance.conf.d"}}},
		"uwsgi": {"uWSGI reads its ini; the application finds the rest without arguments",
			render.UWSGI, want{[]string{"uwsgi"}, []string{"--ini", "/etc/glance/config/glance-api-uwsgi.ini"}}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cmd, args := render.Command(tc.mode)
			assert.Equal(t, tc.want, want{cmd, args}, tc.reason)
		})
	}
}

// testSpec is a Glance spec with every default filled in.
func testSpec(mods ...func(*api.GlanceSpec)) api.GlanceSpec {
	s := api.GlanceSpec{OpenStackRelease: "2025.2"}
	for _, m := range mods {
		m(&s)
	}
	return s.WithDefaults("openstack")
}

func TestConfigData(t *testing.T) {
	three, eight := int32(3), int32(8)
	sized := testSpec(func(s *api.GlanceSpec) {
		s.APIServer = &api.APIServerSpec{Workers: &three, UWSGI: &api.UWSGISpec{Processes: &three, Threads: &eight}}
	})
	def := &model.Store{ID: "default", State: storestate.Rendered, Section: "[default]\n"}
	type want struct {
		files        []string
		workers      string // [DEFAULT] workers, "" when absent
		keepAlive    string // [DEFAULT] http_keepalive, "" when absent
		uwsgiSizing  []string
		uwsgiListens string
	}
	cases := map[string]struct {
		reason string
		mode   render.LaunchMode
		want   want
	}{
		"eventlet": {"the eventlet server takes its workers from glance-api.conf and needs no uWSGI ini; it closes each connection after its answer, so a pod out of its Service gets no more requests",
			render.Eventlet, want{files: []string{names.ConfigFile, render.PasteFile}, workers: "3", keepAlive: "false"}},
		"uwsgi": {"uWSGI sizes itself from its ini and its http-socket closes connections; glance-api.conf has no workers (2026.2 dropped the option)",
			render.UWSGI, want{files: []string{names.ConfigFile, render.PasteFile, render.UWSGIFile}, uwsgiSizing: []string{"3", "8"}, uwsgiListens: "$(POD_IP):9292"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			conf, err := render.RenderConfig(render.ConfInput{Glance: &api.Glance{}, Spec: sized, Mode: tc.mode, Stores: []*model.Store{def}, Def: def, Files: files})
			require.NoError(t, err)
			data := render.ConfigData(conf, sized, tc.mode)
			var got want
			for k := range data {
				got.files = append(got.files, k)
			}
			f, err := ini.Load([]byte(data[names.ConfigFile]))
			require.NoError(t, err)
			got.workers = f.Section("DEFAULT").Key("workers").String()
			got.keepAlive = f.Section("DEFAULT").Key("http_keepalive").String()
			if u, ok := data[render.UWSGIFile]; ok {
				uf, err := ini.Load([]byte(u))
				require.NoError(t, err)
				s := uf.Section("uwsgi")
				got.uwsgiSizing = []string{s.Key("processes").String(), s.Key("threads").String()}
				got.uwsgiListens = s.Key("http-socket").String()
			}
			assert.ElementsMatch(t, tc.want.files, got.files, tc.reason)
			tc.want.files, got.files = nil, nil
			assert.Equal(t, tc.want, got, tc.reason)
			assert.Equal(t, render.PasteConfig, f.Section("paste_deploy").Key("config_file").String(), "the paste file is named, in both modes")
			assert.False(t, f.Section("DEFAULT").HasKey("bind_host"), "bind_host comes from the environment (the pod's IP)")
			assert.False(t, f.Section("DEFAULT").HasKey("worker_self_reference_url"), "each pod's own URL comes from the environment")
			assert.Equal(t, "[glance-direct,copy-image]", f.Section("DEFAULT").Key("enabled_import_methods").String(),
				"the import methods are explicit, in the brackets oslo.config wants for this list")
		})
	}
}

// TestEveryPodNamesItself: each pod tells the others where it is, so an
// import asked of one pod reaches the pod that staged the data.
func TestEveryPodNamesItself(t *testing.T) {
	spec := testSpec()
	env := map[string]string{}
	var order []string
	for _, e := range render.LaunchEnv(&api.Glance{}, spec) {
		env[e.Name] = e.Value
		order = append(order, e.Name)
	}
	assert.Equal(t, "http://$(POD_IP):9292", env[render.EnvWorkerSelfURL], "oslo.config's override of [DEFAULT] worker_self_reference_url")
	assert.Less(t, slices.Index(order, render.EnvPodIP), slices.Index(order, render.EnvWorkerSelfURL), "$(POD_IP) is defined before it is used")
}

// TestPasteIni reads the paste file back with an independent parser: the
// flavour the config names is a map of paths that sends the probes' path
// to oslo.middleware's healthcheck application, outside the pipeline (so
// the probes need no token, and 2026.1's oslo.middleware, which refuses
// the healthcheck as a filter, loads it), and every other path to the
// pipeline, whose filters are all defined and which authenticates.
func TestPasteIni(t *testing.T) {
	f, err := ini.LoadSources(ini.LoadOptions{KeyValueDelimiters: "=:"}, []byte(render.PasteIni))
	require.NoError(t, err)
	root, err := f.GetSection("composite:glance-api-" + render.PasteFlavor)
	require.NoError(t, err, "the flavour [paste_deploy] names")
	assert.Equal(t, "glance.api:root_app_factory", root.Key("paste.composite_factory").String())
	assert.Equal(t, render.PastePipeline, root.Key("/").String(), "every other path goes through the pipeline")
	assert.Equal(t, "healthcheck", root.Key(render.HealthPath).String(), "the probes' path goes to the healthcheck")
	assert.Len(t, root.Keys(), 3, "the map routes two paths")

	health, err := f.GetSection("app:healthcheck")
	require.NoError(t, err, "the healthcheck is an application")
	assert.Equal(t, "oslo_middleware:Healthcheck.app_factory", health.Key("paste.app_factory").String())
	assert.False(t, health.HasKey("backends"),
		"no disable_by_file: the liveness probe asks the same path, so disabling would restart the pod")
	assert.False(t, f.HasSection("filter:healthcheck"), "oslo.middleware from 2026.1 refuses the healthcheck as a filter")

	pipe, err := f.GetSection("pipeline:" + render.PastePipeline)
	require.NoError(t, err)
	stages := strings.Fields(pipe.Key("pipeline").String())
	require.NotEmpty(t, stages)
	app := stages[len(stages)-1]
	assert.True(t, f.HasSection("composite:"+app) || f.HasSection("app:"+app), "the pipeline ends in an app: %s", app)
	for _, filter := range stages[:len(stages)-1] {
		assert.True(t, f.HasSection("filter:"+filter), "filter %s is defined", filter)
	}
	assert.Contains(t, stages, "authtoken", "every path but the probes' is authenticated")
	assert.NotContains(t, stages, "healthcheck")
}

// TestUWSGIStopsWithinTheGracePeriod reads back the two settings that
// bound and clean up a uWSGI pod's stop: the master kills a worker still
// busy after the mercy, which is shorter than the pod's grace period, and
// every answer says the connection closes, since http-socket closes it.
func TestUWSGIStopsWithinTheGracePeriod(t *testing.T) {
	f, err := ini.ShadowLoad([]byte(render.RenderUWSGI(testSpec())))
	require.NoError(t, err)
	s := f.Section("uwsgi")
	mercy, err := s.Key("worker-reload-mercy").Int64()
	require.NoError(t, err)
	assert.Less(t, mercy, int64(render.TerminationGraceSeconds), "the master kills stuck workers before the kubelet kills the master")
	assert.Equal(t, "true", s.Key("die-on-term").String(), "SIGTERM ends uWSGI instead of reloading it")
	assert.Equal(t, []string{"Connection: close"}, s.Key("add-header").ValueWithShadows())

	var d appsv1.Deployment
	raw, err := json.Marshal(render.Deployment(&api.Glance{}, testSpec(), decide.RunTarget{Image: "i", Release: render.UWSGIFrom}, render.PodInputs{Mounts: render.Mounts{ConfigMap: "c", BackendsSecret: "b"}, Digest: "x", EveryPod: everyPod}, nil))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &d))
	require.NotNil(t, d.Spec.Template.Spec.TerminationGracePeriodSeconds)
	assert.Equal(t, int64(render.TerminationGraceSeconds), *d.Spec.Template.Spec.TerminationGracePeriodSeconds)
}

// TestStopValues: the preStop sleep, the grace period and uWSGI's worker
// mercy as rendered from the spec (see docs/stopping.md).
func TestStopValues(t *testing.T) {
	type want struct{ preStop, grace, mercy int64 }
	i32 := func(v int32) *int32 { return &v }
	i64 := func(v int64) *int64 { return &v }
	cases := map[string]struct {
		reason string
		mod    func(*api.GlanceSpec)
		want   want
	}{
		"defaults": {"a 5 s sleep, Kubernetes' 30 s, the rest less the margin for the workers",
			func(*api.GlanceSpec) {}, want{5, 30, 15}},
		"harakiri": {"the grace period fits the longest request uWSGI allows (admission takes up to 29 s with the default grace period), and the mercy is that request",
			func(s *api.GlanceSpec) { s.APIServer = &api.APIServerSpec{UWSGI: &api.UWSGISpec{Harakiri: i32(25)}} }, want{5, 40, 25}},
		"short harakiri": {"never below Kubernetes' default",
			func(s *api.GlanceSpec) { s.APIServer = &api.APIServerSpec{UWSGI: &api.UWSGISpec{Harakiri: i32(10)}} }, want{5, 30, 15}},
		"spec's own": {"a grace period and sleep the spec sets are kept, 0 is no sleep",
			func(s *api.GlanceSpec) {
				s.Deployment = &api.DeploymentSpec{TerminationGracePeriodSeconds: i64(40), PreStopSleepSeconds: i64(0)}
			}, want{0, 40, 30}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			spec := testSpec(tc.mod)
			assert.Equal(t, tc.want, want{render.PreStopSeconds(spec), render.GraceSeconds(spec), render.WorkerMercySeconds(spec)}, tc.reason)
		})
	}
}

// TestLoadingWorkersEndAtOnce: the uWSGI ini gives a worker uWSGI's own
// end_me for SIGHUP and SIGINT from the first instruction and again right
// after each fork, and end_me leaves by _exit (docs/stopping.md).
func TestLoadingWorkersEndAtOnce(t *testing.T) {
	f, err := ini.ShadowLoad([]byte(render.RenderUWSGI(testSpec())))
	require.NoError(t, err)
	s := f.Section("uwsgi")
	assert.Equal(t, []string{"unix_signal:1 end_me", "unix_signal:2 end_me"}, s.Key("hook-asap").ValueWithShadows())
	assert.Equal(t, []string{"unix_signal:1 end_me"}, s.Key("hook-post-fork").ValueWithShadows())
	assert.Equal(t, "true", s.Key("skip-atexit").String())
}

// TestEventletGlanceAPIIsNotPIDOne: the eventlet server's pod shares its
// process namespace, so a SIGTERM that comes before glance-api has its
// handler ends it instead of being dropped; uWSGI's pod is left as it was.
func TestEventletGlanceAPIIsNotPIDOne(t *testing.T) {
	eventlet, err := release.Parse("2025.2")
	require.NoError(t, err)
	for release, want := range map[release.Release]*bool{eventlet: ptr(true), render.UWSGIFrom: nil} {
		var d appsv1.Deployment
		raw, err := json.Marshal(render.Deployment(&api.Glance{}, testSpec(), decide.RunTarget{Image: "i", Release: release}, render.PodInputs{Mounts: render.Mounts{ConfigMap: "c", BackendsSecret: "b"}, Digest: "x", EveryPod: everyPod}, nil))
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(raw, &d))
		assert.Equal(t, want, d.Spec.Template.Spec.ShareProcessNamespace, "release %s (%s)", release, render.LaunchModeOf(release))
	}
}
