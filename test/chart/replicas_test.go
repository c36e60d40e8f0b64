package chart

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/simulate/chain"
	"github.com/c5c3/glance-hooks/test/kubechain"
	"github.com/c5c3/glance-hooks/test/perf"
)

// replicas serves the hooks of a walk from several hook servers, as several
// pods behind the chart's Service would: call n goes to replica n mod k,
// and every other replica is asked the same question; their answers must
// be byte for byte the same.
type replicas struct {
	t      *testing.T
	client *http.Client
	auth   string
	bases  []string
	calls  int
	// events are the Event children the sync answers returned, by name,
	// as answered: one name always carries the same bytes.
	events map[string]json.RawMessage
}

// ask posts body to path on every replica, starting with the one whose turn
// it is, and returns the answer. Answers stamp condition transitions with
// the server's clock, to the second, so they are compared when all of them
// were given within one second of the wall clock, which every replica on
// this machine shares; otherwise the question is asked again.
func (r *replicas) ask(path string, body []byte) []byte {
	r.t.Helper()
	for attempt := 0; ; attempt++ {
		start := time.Now()
		answers := make([][]byte, len(r.bases))
		for k := range r.bases {
			answers[k] = r.post(r.bases[(r.calls+k)%len(r.bases)]+path, body)
		}
		if !sameSecond(start, time.Now()) && attempt < 5 {
			continue
		}
		for k := 1; k < len(answers); k++ {
			if !bytes.Equal(answers[0], answers[k]) {
				r.t.Fatalf("call %d to %s: replicas %d and %d answer differently, from byte %d (of %d and %d)",
					r.calls, path, r.calls%len(r.bases), (r.calls+k)%len(r.bases),
					firstDifference(answers[0], answers[k]), len(answers[0]), len(answers[k]))
			}
		}
		r.calls++
		return answers[0]
	}
}

func firstDifference(a, b []byte) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}

func sameSecond(a, b time.Time) bool { return a.Truncate(time.Second).Equal(b.Truncate(time.Second)) }

func (r *replicas) post(url string, body []byte) []byte {
	r.t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	require.NoError(r.t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", r.auth)
	resp, err := r.client.Do(req)
	require.NoError(r.t, err)
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	require.NoError(r.t, err)
	require.Equal(r.t, http.StatusOK, resp.StatusCode, "%s: %s", url, out)
	return out
}

// controllers are the chain's controllers with their hooks called at the
// paths the chart registers for them.
func (r *replicas) controllers(ccs map[string]kubechain.CompositeController) []chain.Controller {
	var out []chain.Controller
	for _, c := range chain.Controllers() {
		cc, ok := ccs[c.Name]
		require.True(r.t, ok, "the chart registers controller %s", c.Name)
		syncPath := *cc.Spec.Hooks[kubechain.HookSync].Webhook.Path
		c.Sync = func(req *metacontroller.SyncRequest, _ time.Time) (*metacontroller.SyncResponse, error) {
			body, err := json.Marshal(req)
			if err != nil {
				return nil, err
			}
			answer := r.ask(syncPath, body)
			r.recordEvents(answer)
			var resp metacontroller.SyncResponse
			return &resp, json.Unmarshal(answer, &resp)
		}
		if c.Customize != nil {
			customizePath := *cc.Spec.Hooks[kubechain.HookCustomize].Webhook.Path
			c.Customize = func(req *metacontroller.CustomizeRequest) (*metacontroller.CustomizeResponse, error) {
				body, err := json.Marshal(req)
				if err != nil {
					return nil, err
				}
				var resp metacontroller.CustomizeResponse
				return &resp, json.Unmarshal(r.ask(customizePath, body), &resp)
			}
		}
		out = append(out, c)
	}
	return out
}

// recordEvents keeps the Event children of a sync answer and checks that a
// name seen before carries the same bytes as then.
func (r *replicas) recordEvents(answer []byte) {
	r.t.Helper()
	var resp struct{ Children []json.RawMessage }
	require.NoError(r.t, json.Unmarshal(answer, &resp))
	for _, raw := range resp.Children {
		o := chain.Object{}
		require.NoError(r.t, json.Unmarshal(raw, &o))
		if ref := chain.RefOf(o); ref.Kind == "Event" {
			if before, seen := r.events[ref.Name]; seen {
				require.JSONEq(r.t, string(before), string(raw), "Event %s: the same name, other bytes", ref.Name)
			}
			r.events[ref.Name] = raw
		}
	}
}

// Two hook replicas, each a `glance-hooks serve` process run with the
// chart's hooks container arguments (TLS with the chart's certificate, the
// hook token), answer the guide's walk through the in-process Metacontroller
// alternately. Every question goes to both and their answers are byte for
// byte the same; the walk writes exactly what the in-process walk writes
// and ends in the same objects (but for the transition times, which each
// server stamps with its own clock): no replica keeps state between calls.
func TestReplicasAnswerAlike(t *testing.T) {
	r := render(t, "glance-hooks", "glance-hooks")
	var dep appsv1.Deployment
	r.one(t, "Deployment").into(t, &dep)
	require.GreaterOrEqual(t, *dep.Spec.Replicas, int32(2), "the chart runs several replicas by default")
	ctr := container(t, &dep, "hooks")
	dir := t.TempDir()
	creds := writeCredentials(t, &dep, dir)
	ccs := compositeControllers(t, r)
	host := syncHost(t, ccs["glance"])
	rep := &replicas{t: t, client: chartClient(t, creds.ca, host), auth: "Bearer " + creds.token,
		events: map[string]json.RawMessage{}}
	for range 2 {
		rep.bases = append(rep.bases, "https://"+runContainer(t, ctr, dir)["hooks"])
	}

	// The chain's clock starts at the servers', at the start of a second,
	// so that what the hooks compare with their clock (creation and
	// transition times, a first render's wait) reads the same in both walks
	// for as long as the walk's first steps take less than a second.
	time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second)))
	start := time.Now().UTC().Truncate(time.Second)
	remote, err := perf.GuideWalk(rep.controllers(ccs), start)
	require.NoError(t, err)
	local, err := perf.GuideWalk(chain.Controllers(), start)
	require.NoError(t, err)
	require.Equal(t, len(local), len(remote))
	assert.Greater(t, rep.calls, 50, "the walk made the calls")
	for i := range local {
		assert.Equal(t, local[i].Stats, remote[i].Stats, "%s: the same writes and hook calls", local[i].Name)
		assert.Equal(t, withoutTransitionTimes(t, local[i].Objects), withoutTransitionTimes(t, remote[i].Objects),
			"%s: the same objects", local[i].Name)
	}
	last := remote[len(remote)-1].Objects
	assert.Contains(t, conditionsOf(t, last, "Glance", "controlplane-glance"), "Ready=True", "the walk ends with a ready Glance")
	// The Events: every answer above came from both replicas byte for byte;
	// the walk's Glances report their schema synced (the walk's two worlds
	// hold a Glance of the same name and uid, and within one second of the
	// clock they answer the same Event).
	require.NotEmpty(t, rep.events, "the walk returned Events")
	for name, raw := range rep.events {
		var e struct{ Reason, Type string }
		require.NoError(t, json.Unmarshal(raw, &e))
		assert.Equal(t, "Normal/DatabaseSynced", e.Type+"/"+e.Reason, "%s: the guide's walk has no fault", name)
	}
	for _, o := range last {
		if ref := chain.RefOf(o); ref.Kind == "Event" {
			assert.Contains(t, rep.events, ref.Name, "the Event in the cluster is one the replicas answered")
		}
	}
}

// withoutTransitionTimes is the objects as JSON, every lastTransitionTime
// blanked, and every Event named by its reason, without its eventTime and
// its last-applied record: both walks' Events are named by a digest of
// their condition's transition time.
func withoutTransitionTimes(t *testing.T, objs []chain.Object) string {
	var kept []chain.Object
	for _, o := range objs {
		if chain.RefOf(o).Kind == "Event" {
			meta := o["metadata"].(map[string]any)
			o = chain.Object{"metadata": map[string]any{"name": meta["name"].(string)[:strings.LastIndex(meta["name"].(string), ".")]},
				"reason": o["reason"], "type": o["type"], "note": o["note"], "regarding": o["regarding"]}
		}
		kept = append(kept, o)
	}
	raw, err := json.MarshalIndent(kept, "", " ")
	require.NoError(t, err)
	var out []string
	for _, line := range strings.Split(string(raw), "\n") {
		if strings.Contains(line, `"lastTransitionTime":`) {
			line = `"lastTransitionTime": "-"`
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// conditionsOf lists an object's conditions as "Type=Status".
func conditionsOf(t *testing.T, objs []chain.Object, kind, name string) []string {
	for _, o := range objs {
		if r := chain.RefOf(o); r.Kind == kind && r.Name == name {
			var st struct {
				Status struct {
					Conditions []struct{ Type, Status string } `json:"conditions"`
				} `json:"status"`
			}
			raw, err := json.Marshal(o)
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(raw, &st))
			var out []string
			for _, c := range st.Status.Conditions {
				out = append(out, fmt.Sprintf("%s=%s", c.Type, c.Status))
			}
			return out
		}
	}
	t.Fatalf("no %s %s", kind, name)
	return nil
}
