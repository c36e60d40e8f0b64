package datapath

import (
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/glance"
	"github.com/c5c3/glance-hooks/simulate/chain"
	"github.com/c5c3/glance-hooks/test/glancestack"
	"github.com/c5c3/glance-hooks/test/services"
)

// operatorConfig proves, on one standalone Glance over the real Keystone,
// what an operator's own configuration does to glance-api: the secure-RBAC
// defaults the hooks render (a reader lists but cannot create, a member
// creates), a policyOverrides rule that forbids delete_image, and the
// token-less leg the reference's end-to-end suites open with extraConfig,
// a middleware filter and policyOverrides, against the same Glance without
// them, which answers 401. Then an extraConfig override of a key the hooks
// own: ExtraConfigHealthy turns False naming it, with one Warning Event,
// and True again without another once the override is gone.
func operatorConfig(t *testing.T, svc *glancestack.Services, unstable bool) {
	o := glancestack.Options{Database: "glance_opconf", Standalone: true}
	if unstable {
		o = onUnstable(t, o)
	}
	st := glancestack.New(t, svc, o)
	st.Reconcile(t)
	conf := st.ConfigMapData(t, mustConfigMap(t, st))[names.ConfigFile]
	require.Contains(t, conf, "[oslo_policy]\nenforce_new_defaults = true\nenforce_scope = true\n", "secure RBAC is rendered")

	kc := svc.Keystone
	// Users and a project of this stack's own: the stacks share Keystone,
	// and another stack's user of the same name would reset the password.
	project := strings.ReplaceAll(o.Database, "_", "-")
	reader := services.Credentials{User: project + "-reader", Password: glancestack.Password(), Project: project}
	member := services.Credentials{User: project + "-member", Password: glancestack.Password(), Project: project}
	for role, c := range map[string]services.Credentials{"reader": reader, "member": member} {
		kc.User(t, c.User, c.Password, project)
		kc.Grant(t, c.User, project, role)
	}
	pod := onlyPod(t, st)
	anon := &glancestack.Client{URL: pod.URL("api"), Logs: func() string { return pod.Logs(pod.Container) }}
	asReader := &glancestack.Client{URL: pod.URL("api"), Token: kc.Token(t, reader), Logs: anon.Logs}
	asMember := &glancestack.Client{URL: pod.URL("api"), Token: kc.Token(t, member), Logs: anon.Logs}

	var memberImage string
	t.Run("secure RBAC: a reader lists, a member creates", func(t *testing.T) {
		code, body := anon.Call(t, http.MethodGet, "/v2/images", nil, nil)
		assert.Equal(t, http.StatusUnauthorized, code, "no token, no anonymous access: %s", body)
		code, body = asReader.Call(t, http.MethodGet, "/v2/images", nil, nil)
		assert.Equal(t, http.StatusOK, code, "a reader lists images: %s", body)
		code, body = postImage(t, asReader, "by-reader", "raw")
		assert.Equal(t, http.StatusForbidden, code, "a reader cannot create an image: %s", body)
		code, body = postImage(t, asMember, "by-member", "raw")
		require.Equal(t, http.StatusCreated, code, "a member creates an image: %s", body)
		memberImage = imageID(t, body)
		t.Logf("secure RBAC on %s: no token 401, reader lists 200 and creates 403, member creates 201", st.Versions.Glance)
	})

	t.Run("a policy override forbids delete_image", func(t *testing.T) {
		require.NotEmpty(t, memberImage, "the member's image exists")
		before, _ := st.Mounts(t)
		st.Respec(t, func(s *api.GlanceSpec) {
			s.PolicyOverrides = &api.PolicySpec{Rules: map[string]string{"delete_image": "!"}}
		})
		st.Reconcile(t)
		after, _ := st.Mounts(t)
		require.NotEqual(t, before, after, "the rule changed the config, and the pods rolled onto it")
		pod := onlyPod(t, st)
		asMember := &glancestack.Client{URL: pod.URL("api"), Token: kc.Token(t, member), Logs: func() string { return pod.Logs(pod.Container) }}
		code, body := asMember.Call(t, http.MethodDelete, "/v2/images/"+memberImage, nil, nil)
		assert.Equal(t, http.StatusForbidden, code, "the owner's delete is forbidden by the override: %s", body)
		assert.Equal(t, "queued", asMember.Image(t, memberImage).Status, "the image is still there")
		t.Logf("delete_image \"!\": ConfigMap %s -> %s, the owner's DELETE answers %d", before, after, code)
	})

	t.Run("extraConfig, middleware and policyOverrides open the API without a token", func(t *testing.T) {
		st.Respec(t, anonymousAccess)
		st.Reconcile(t)
		pod := onlyPod(t, st)
		anon := &glancestack.Client{URL: pod.URL("api"), Logs: func() string { return pod.Logs(pod.Container) }}
		data := randomBytes(26, 1<<20+3)
		code, body := postImage(t, anon, "anonymous", "raw")
		require.Equal(t, http.StatusCreated, code, "create without a token: %s", body)
		id := imageID(t, body)
		code, body = anon.Upload(t, id, data, "")
		require.Equal(t, http.StatusNoContent, code, "upload without a token: %s", body)
		assert.Equal(t, data, anon.Download(t, id), "download without a token")
		t.Logf("without a token: image %s created, %d bytes uploaded and downloaded", id, len(data))
		assert.Equal(t, "True/"+glance.ReasonNoOwnedKeysOverridden, st.Condition(t, api.KindGlance, st.Glance, glance.CondExtraConfigHealthy),
			"allow_anonymous_access is not a key the hooks own")

		// The same Glance without the three answers 401 again.
		st.Respec(t, nil)
		st.Reconcile(t)
		pod = onlyPod(t, st)
		anon = &glancestack.Client{URL: pod.URL("api")}
		code, body = anon.Call(t, http.MethodGet, "/v2/images/"+id, nil, nil)
		assert.Equal(t, http.StatusUnauthorized, code, "without them, no token is a 401: %s", body)
	})

	t.Run("spec.logging: JSON records through oslo.log's formatter, one logger at its own level", func(t *testing.T) {
		st.Respec(t, func(s *api.GlanceSpec) {
			s.Logging = &api.LoggingSpec{Format: api.LogFormatJSON, Level: "INFO",
				PerLoggerLevels: map[string]string{"keystonemiddleware.auth_token": "DEBUG"}}
		})
		st.Reconcile(t)
		code, body := asReaderOn(t, st, kc, reader).Call(t, http.MethodGet, "/v2/images", nil, nil)
		require.Equal(t, http.StatusOK, code, "%s", body)
		pod := onlyPod(t, st)
		records, debug := jsonRecords(pod.Logs(pod.Container))
		require.NotZero(t, records, "glance-api writes JSON records")
		assert.NotEmpty(t, debug["keystonemiddleware.auth_token"], "the logger set to DEBUG logs at DEBUG")
		for name := range debug {
			assert.True(t, strings.HasPrefix(name, "keystonemiddleware.auth_token"), "no other logger logs at DEBUG under root INFO: %s", name)
		}
		t.Logf("%d JSON records, DEBUG ones from %v", records, slices.Sorted(maps.Keys(debug)))
		st.Respec(t, nil)
		st.Reconcile(t)
	})

	t.Run("spec.logging text: perLoggerLevels over oslo.log's default levels", func(t *testing.T) { textLogLevels(t, st, kc, reader) })

	t.Run("an owned key overridden is reported, and its removal is quiet", func(t *testing.T) {
		memcached := svc.Memcached.Addr()
		st.Respec(t, func(s *api.GlanceSpec) {
			s.ExtraConfig = map[string]map[string]string{"keystone_authtoken": {"memcached_servers": memcached}}
		})
		st.Reconcile(t)
		g := glanceStatus(t, st)
		c := findCondition(g, glance.CondExtraConfigHealthy)
		require.NotNil(t, c)
		assert.Equal(t, "False", c["status"])
		assert.Contains(t, c["message"], "[keystone_authtoken] memcached_servers")
		warnings := extraConfigEvents(st)
		require.Len(t, warnings, 1, "one Warning Event for the override")
		code, body := asReaderOn(t, st, kc, reader).Call(t, http.MethodGet, "/v2/images", nil, nil)
		assert.Equal(t, http.StatusOK, code, "the override is the value the hooks render, so glance-api serves on: %s", body)

		st.Respec(t, nil)
		st.Reconcile(t)
		assert.Equal(t, "True/"+glance.ReasonNoOwnedKeysOverridden, st.Condition(t, api.KindGlance, st.Glance, glance.CondExtraConfigHealthy), "removed, it is True again")
		assert.Equal(t, warnings, extraConfigEvents(st), "and no other Event is made")
	})
}

// anonymousAccess is what the reference's end-to-end suites set for their
// token-less leg: anonymous access, glance's unauthenticated-context
// filter after the hooks' own, and the image rules opened.
func anonymousAccess(s *api.GlanceSpec) {
	s.ExtraConfig = map[string]map[string]string{"DEFAULT": {"allow_anonymous_access": "true"}}
	s.Middleware = []api.MiddlewareSpec{{Name: "unauthenticated-context",
		FilterFactory: "glance.api.middleware.context:UnauthenticatedContextMiddleware.factory", Position: api.MiddlewareAfter}}
	rules := map[string]string{}
	for _, r := range []string{"add_image", "get_image", "get_images", "upload_image", "download_image", "modify_image", "delete_image"} {
		rules[r] = "@"
	}
	s.PolicyOverrides = &api.PolicySpec{Rules: rules}
}

func asReaderOn(t *testing.T, st *glancestack.Stack, kc *services.Keystone, c services.Credentials) *glancestack.Client {
	t.Helper()
	pod := onlyPod(t, st)
	return &glancestack.Client{URL: pod.URL("api"), Token: kc.Token(t, c), Logs: func() string { return pod.Logs(pod.Container) }}
}

func mustConfigMap(t *testing.T, st *glancestack.Stack) string {
	t.Helper()
	cm, _ := st.Mounts(t)
	require.NotEmpty(t, cm)
	return cm
}

// postImage asks for a new image record of a disk format and answers what
// Glance said: a test of who may create one reads the code.
func postImage(t *testing.T, c *glancestack.Client, name, diskFormat string) (int, []byte) {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"name": name, "disk_format": diskFormat, "container_format": "bare"})
	return c.Call(t, http.MethodPost, "/v2/images", body, map[string]string{"Content-Type": "application/json"})
}

func imageID(t *testing.T, body []byte) string {
	t.Helper()
	var img glancestack.Image
	require.NoError(t, json.Unmarshal(body, &img))
	require.NotEmpty(t, img.ID)
	return img.ID
}

func glanceStatus(t *testing.T, st *glancestack.Stack) chain.Object {
	t.Helper()
	return st.Get(t, api.GlanceAPIVersion, api.KindGlance, st.Glance)
}

func findCondition(g chain.Object, typ string) map[string]any {
	status, _ := g["status"].(map[string]any)
	conds, _ := status["conditions"].([]any)
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok && m["type"] == typ {
			return m
		}
	}
	return nil
}

// extraConfigEvents are the names of the Glance's ExtraConfigOwnedKeyOverride Events.
func extraConfigEvents(st *glancestack.Stack) []string {
	var out []string
	for _, e := range st.World.ObjectsIn(glancestack.Namespace, "Event") {
		if e["reason"] == glance.EventExtraConfigOwnedKey {
			md, _ := e["metadata"].(map[string]any)
			name, _ := md["name"].(string)
			out = append(out, strings.TrimSpace(name))
		}
	}
	return out
}

// jsonRecords counts the log lines that are JSON records as oslo.log's
// JSONFormatter writes them, and lists the DEBUG ones by logger.
func jsonRecords(log string) (int, map[string][]string) {
	n, debug := 0, map[string][]string{}
	for _, line := range strings.Split(log, "\n") {
		var rec struct {
			Name      string `json:"name"`
			LevelName string `json:"levelname"`
			Message   string `json:"message"`
		}
		if !strings.HasPrefix(line, "{") || json.Unmarshal([]byte(line), &rec) != nil || rec.LevelName == "" {
			continue
		}
		n++
		if rec.LevelName == "DEBUG" {
			debug[rec.Name] = append(debug[rec.Name], rec.Message)
		}
	}
	return n, debug
}
