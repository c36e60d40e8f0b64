package test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/transport/server"
)

// targetLabels are the labels Prometheus (and the Prometheus operator's
// ServiceMonitor) puts on every scraped series.
var targetLabels = []string{"namespace", "pod", "service", "container", "endpoint", "instance", "job"}

var (
	promqlBlock  = regexp.MustCompile("(?s)```promql\n(.*?)```")
	metricRef    = regexp.MustCompile(`\b(glance_hooks_[a-z_]+)(\{[^}]*\})?`)
	matcherLabel = regexp.MustCompile(`([a-z_]+)\s*(?:=~|!~|!=|=)\s*"`)
	groupLabels  = regexp.MustCompile(`\b(?:by|without)\s*\(([^)]*)\)`)
)

// promqlExprs are the ```promql blocks of a Markdown file, comments dropped.
func promqlExprs(t *testing.T, path string) []string {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	var out []string
	for _, m := range promqlBlock.FindAllStringSubmatch(string(raw), -1) {
		var lines []string
		for _, l := range strings.Split(m[1], "\n") {
			if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
				lines = append(lines, l)
			}
		}
		out = append(out, strings.Join(lines, " "))
	}
	return out
}

// promqlProblems names each metric of expr the service does not export,
// each label a selector names that its metric does not have, and each
// grouping label that neither the expression's metrics nor Prometheus'
// target labels have.
func promqlProblems(expr string) []string {
	var problems []string
	refs := metricRef.FindAllStringSubmatch(expr, -1)
	if len(refs) == 0 {
		return []string{"names no glance_hooks_ metric"}
	}
	known := append([]string{}, targetLabels...)
	for _, r := range refs {
		name, labels := r[1], []string(nil)
		base := name
		for _, suffix := range []string{"_bucket", "_sum", "_count"} {
			if b, ok := strings.CutSuffix(name, suffix); ok && b == server.MetricDuration {
				base = b
				if suffix == "_bucket" {
					labels = append(labels, "le")
				}
			}
		}
		ml, ok := server.MetricLabels[base]
		if !ok {
			problems = append(problems, "the service exports no metric "+name)
			continue
		}
		labels = append(labels, ml...)
		for _, m := range matcherLabel.FindAllStringSubmatch(r[2], -1) {
			if !slices.Contains(labels, m[1]) {
				problems = append(problems, name+" has no label "+m[1])
			}
		}
		known = append(known, labels...)
	}
	for _, g := range groupLabels.FindAllStringSubmatch(expr, -1) {
		for _, l := range strings.Split(g[1], ",") {
			if l = strings.TrimSpace(l); l != "" && !slices.Contains(known, l) {
				problems = append(problems, "groups by "+l+", which none of its series has")
			}
		}
	}
	return problems
}

// The alert expressions docs/operations.md documents use the metrics the service
// exports, with the labels they have.
func TestDocumentedPromQL(t *testing.T) {
	exprs := promqlExprs(t, filepath.Join("..", "docs", "operations.md"))
	require.Len(t, exprs, 3, "docs/operations.md documents three alerts")
	for _, e := range exprs {
		assert.Empty(t, promqlProblems(e), e)
	}
}

// The check itself finds what it is there to find.
func TestCheckPromQLCatchesMistakes(t *testing.T) {
	for _, bad := range []string{
		`rate(glance_hooks_requests_total[5m])`,
		`rate(glance_hooks_http_requests_total{code="500"}[5m])`,
		`sum by (kind) (rate(glance_hooks_http_requests_total[5m]))`,
		`glance_hooks_http_request_duration_seconds_sum{le="1"}`,
	} {
		assert.NotEmpty(t, promqlProblems(bad), "%s should be refused", bad)
	}
}
