package datapath

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"

	"github.com/c5c3/glance-hooks/internal/simulate/chain"
	"github.com/c5c3/glance-hooks/test/proc"
)

// jobRun is one schema Job the test ran.
type jobRun struct {
	name       string
	containers []string // the containers that ran, in order
	took       time.Duration
	failed     string // the last lines of the failed container's output
}

// runJobs makes the cluster's Job controller run every schema Job the hooks
// create for real, init containers first and each only if the one before
// succeeded: the Job's own command, arguments (only the config directories
// mapped) and environment, so glance-manage syncs the real database through
// the URL the hooks built. No extra config layer: glance-manage reads only
// [database] and the environment.
func (c *cluster) runJobs(t *testing.T, dir string, redact *proc.Redactor) *[]jobRun {
	runs := &[]jobRun{}
	c.w.JobResult = func(_ *chain.World, obj chain.Object) (chain.JobOutcome, error) {
		raw, err := json.Marshal(obj)
		if err != nil {
			return 0, err
		}
		var job batchv1.Job
		if err := json.Unmarshal(raw, &job); err != nil {
			return 0, err
		}
		spec := job.Spec.Template.Spec
		run := jobRun{name: job.Name}
		jdir := filepath.Join(dir, fmt.Sprintf("job-%d-%s", len(*runs)+1, job.Name))
		start := time.Now()
		for _, ctr := range append(append(spec.InitContainers[:0:0], spec.InitContainers...), spec.Containers...) {
			dirs, _ := layVolumes(t, c, jdir, spec, ctr)
			args, err := rewriteConfigFiles(ctr.Args, dirs)
			if err != nil {
				return 0, fmt.Errorf("container %s: %w", ctr.Name, err)
			}
			env := append(proc.CleanEnv(filepath.Join(jdir, "home")), resolveEnv(t, c, ctr.Env)...)
			out, err := proc.Run(manageTimeout, proc.Options{Argv: commandOf(t, ctr, args), Env: env, Dir: jdir, Redactor: redact})
			run.containers = append(run.containers, ctr.Name)
			if err != nil {
				run.failed = fmt.Sprintf("%s: %v\n%s", ctr.Name, err, proc.LastLines(out, 20))
				break
			}
		}
		run.took = time.Since(start)
		*runs = append(*runs, run)
		if run.failed != "" {
			t.Logf("Job %s failed in %s", job.Name, run.failed)
			return chain.JobFails, nil
		}
		return chain.JobSucceeds, nil
	}
	return runs
}

// describe lists the runs for a log line.
func describe(runs []jobRun) string {
	var out []string
	for _, r := range runs {
		status := "succeeded"
		if r.failed != "" {
			status = "failed"
		}
		out = append(out, fmt.Sprintf("%s (%s) %s in %s", r.name, strings.Join(r.containers, ", "), status, r.took.Round(time.Millisecond)))
	}
	return strings.Join(out, "; ")
}
