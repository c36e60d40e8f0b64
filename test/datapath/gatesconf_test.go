package datapath

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/glance"
	"github.com/c5c3/glance-hooks/test/proc"
	"github.com/c5c3/glance-hooks/test/refrules"
	"github.com/c5c3/glance-hooks/test/services"
)

// readRendered reads the three files as glance-api reads them: the config
// with oslo.config's own parser, the policy with oslo.policy's, the logging
// config with Python's logging.config (which raises on anything it cannot
// take), and prints what each holds.
const readRendered = `
import json, logging, logging.config, os, sys
from oslo_config import cfg
from oslo_policy import policy
d = sys.argv[1]
out = {}
sections = {}
cfg.ConfigParser(os.path.join(d, 'glance-api.conf'), sections).parse()
out['conf'] = {s: {k: v[-1] for k, v in opts.items()} for s, opts in sections.items()}
p = os.path.join(d, 'policy.yaml')
if os.path.exists(p):
    out['policy'] = policy.parse_file_contents(open(p).read())
p = os.path.join(d, 'logging.conf')
if os.path.exists(p):
    logging.config.fileConfig(p, disable_existing_loggers=False)
    out['loggers'] = {n: logging.getLevelName(l.level) for n, l in logging.root.manager.loggerDict.items() if isinstance(l, logging.Logger)}
print(json.dumps(out))
`

// TestAcceptedCasesReadBack: every accepted case of the shared table
// (refrules.AcceptedRules) renders files the real oslo.config, oslo.policy
// and logging.config read back with nothing extra and nothing missing:
// each option written is one oslo.config reads, with its value, and
// nothing else; each policy rule of the spec is one rule, as written; each
// logger of the spec gets its level.
func TestAcceptedCasesReadBack(t *testing.T) {
	if _, err := os.Stat("/usr/lib/python3/dist-packages/oslo_policy"); err != nil {
		proc.Missing(t, "oslo.config and oslo.policy (Debian packages python3-oslo.config, python3-oslo.policy)", "hack/install-glance.sh installs them")
	}
	raw, err := os.ReadFile(filepath.Join("..", "fixtures", "sync-glance", "two-stores-ready", "request.json"))
	require.NoError(t, err)
	for _, r := range refrules.AcceptedRules {
		t.Run(r.Name, func(t *testing.T) {
			files, spec := renderAccepted(t, raw, r)
			dir := t.TempDir()
			for name, text := range files {
				require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600))
			}
			out, err := proc.Run(time.Minute, proc.Options{Argv: []string{services.Python, "-c", readRendered, dir}, Dir: dir, Log: filepath.Join(dir, "read.log")})
			require.NoError(t, err, "%s", out)
			var got struct {
				Conf    map[string]map[string]string `json:"conf"`
				Policy  map[string]string            `json:"policy"`
				Loggers map[string]string            `json:"loggers"`
			}
			require.NoError(t, json.Unmarshal([]byte(lastLine(out)), &got), "%s", out)
			assert.Equal(t, iniOptions(files[names.ConfigFile]), got.Conf, "oslo.config reads every option written, and no other")
			assert.Equal(t, spec.policy, got.Policy, "oslo.policy reads the spec's rules as written")
			for name, level := range spec.loggers {
				if _, own := files[glance.LoggingFile]; own {
					assert.Equal(t, level, got.Loggers[name], "logger %s in logging.conf", name)
					continue
				}
				// Text logs: oslo.log's list, as oslo.config read it.
				assert.Contains(t, strings.Split(got.Conf["DEFAULT"]["default_log_levels"], ","), name+"="+level, "logger %s", name)
			}
		})
	}
}

// acceptedSpec is what a case sets that the files must hold.
type acceptedSpec struct {
	policy  map[string]string
	loggers map[string]string
}

// renderAccepted runs /sync/glance on the base request with the case
// applied and returns the rendered config ConfigMap's files.
func renderAccepted(t *testing.T, raw []byte, r refrules.Rule) (map[string]string, acceptedSpec) {
	t.Helper()
	var obj map[string]any
	require.NoError(t, json.Unmarshal(raw, &obj))
	r.Apply(obj["parent"].(map[string]any))
	body, err := json.Marshal(obj)
	require.NoError(t, err)
	var req metacontroller.SyncRequest
	require.NoError(t, json.Unmarshal(body, &req))
	resp, err := glance.Sync(&req, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	require.NoError(t, err)
	js, err := json.Marshal(resp.Children)
	require.NoError(t, err)
	var children []struct {
		Kind     string `json:"kind"`
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
		Data map[string]string `json:"data"`
	}
	require.NoError(t, json.Unmarshal(js, &children))
	st, err := json.Marshal(resp.Status)
	require.NoError(t, err)
	var status struct {
		ConfigMapName string `json:"configMapName"`
	}
	require.NoError(t, json.Unmarshal(st, &status))
	var files map[string]string
	for _, c := range children {
		// The ConfigMap the status names, not one kept for running pods.
		if c.Kind == "ConfigMap" && c.Metadata.Name == status.ConfigMapName {
			files = c.Data
		}
	}
	require.NotNil(t, files, "the case renders a config")
	var spec struct {
		Spec struct {
			PolicyOverrides struct {
				Rules map[string]string `json:"rules"`
			} `json:"policyOverrides"`
			Logging struct {
				PerLoggerLevels map[string]string `json:"perLoggerLevels"`
			} `json:"logging"`
		} `json:"spec"`
	}
	pb, err := json.Marshal(obj["parent"])
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(pb, &spec))
	return files, acceptedSpec{policy: spec.Spec.PolicyOverrides.Rules, loggers: spec.Spec.Logging.PerLoggerLevels}
}

// iniOptions is glance-api.conf as it was written: each "[section]" line
// and each "key = value" line under it.
func iniOptions(text string) map[string]map[string]string {
	out := map[string]map[string]string{}
	section := ""
	for _, line := range strings.Split(text, "\n") {
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			section = line[1 : len(line)-1]
			if out[section] == nil {
				out[section] = map[string]string{}
			}
		default:
			k, v, _ := strings.Cut(line, " = ")
			out[section][k] = v
		}
	}
	return out
}
