package catalogs

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/c5c3/glance-hooks/test/proc"
)

// exceptions are the facts on which the Debian packages and the sources of
// the same versions disagree, each with its reason. Anything else found on
// one side only fails the test.
var exceptions = map[string]string{
	"installed only: option [oslo_messaging_rabbit] ssl_enforce_hostname_verification": "Debian's oslo.messaging 14.0.3-0+deb12u1 carries the upstream fix for OSSN-0096 (RabbitMQ TLS hostname verification), which the 14.0.3 tag predates",
	"catalog only: alias [oslo_limit] tenant_id -> [oslo_limit] project_id":            sameNameTwice,
	"catalog only: alias [oslo_limit] tenant_name -> [oslo_limit] project_name":        sameNameTwice,
}

// sameNameTwice: oslo.limit lists the options of three auth plugins in
// [oslo_limit]; oslo-config-generator keeps one option of each name (here
// v3password's project_id, without aliases) while glance-api registers the
// configured plugin's only, and the password plugin's project_id reads
// tenant_id. The catalog keeps every listed option's aliases.
const sameNameTwice = "oslo-config-generator drops all but one of the options of the same name a namespace lists twice in a group; the catalog keeps the aliases of each"

// A catalog as hack/optioncatalog writes it; only what is compared.
type catalogFile struct {
	Namespaces []string `json:"namespaces"`
	Runtime    struct {
		KeystoneAuthtoken string `json:"keystone_authtoken"`
	} `json:"runtime"`
	Groups map[string]struct {
		Options              []string                       `json:"options"`
		DeprecatedForRemoval []string                       `json:"deprecatedForRemoval"`
		Aliases              map[string]map[string][]string `json:"aliases"`
	} `json:"groups"`
	StoreDrivers map[string]struct {
		Options              []string          `json:"options"`
		DeprecatedForRemoval []string          `json:"deprecatedForRemoval"`
		Aliases              map[string]string `json:"aliases"`
		EntryPoints          []string          `json:"entryPoints"`
	} `json:"storeDrivers"`
}

// What oslo-config-generator --format json and installed.py print.
type installedOpt struct {
	Name       string `json:"name"`
	Dest       string `json:"dest"`
	Removal    bool   `json:"removal"`
	ForRemoval bool   `json:"deprecated_for_removal"`
	Deprecated []struct {
		Group *string `json:"group"`
		Name  *string `json:"name"`
	} `json:"deprecated"`
	DeprecatedOpts []struct {
		Group *string `json:"group"`
		Name  *string `json:"name"`
	} `json:"deprecated_opts"`
}

type generatorOutput struct {
	Options map[string]struct {
		Opts []installedOpt `json:"opts"`
	} `json:"options"`
}

type runtimeOutput struct {
	Plugin       []installedOpt `json:"plugin"`
	MultiBackend []installedOpt `json:"multiBackend"`
}

// TestDebianAgrees runs oslo-config-generator for the catalog's namespaces
// on Debian's glance 25.1 and its libraries, adds what glance-api registers
// at runtime (installed.py, on the same packages), and compares option
// names, deprecated aliases and deprecation for removal with the catalog
// the generator made from the sources of the same versions.
func TestDebianAgrees(t *testing.T) {
	gen := "/usr/bin/oslo-config-generator"
	if _, err := os.Stat(gen); err != nil {
		proc.Missing(t, "oslo-config-generator (Debian package python3-oslo.config)", "make datapath-deps installs it")
	}
	if _, err := os.Stat("/usr/lib/python3/dist-packages/glance/opts.py"); err != nil {
		proc.Missing(t, "glance (Debian package python3-glance)", "make datapath-deps installs it")
	}
	raw, err := os.ReadFile(filepath.Join("testdata", "debian-12.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cat catalogFile
	if err := json.Unmarshal(raw, &cat); err != nil {
		t.Fatal(err)
	}
	plugin := strings.TrimPrefix(cat.Runtime.KeystoneAuthtoken, "keystoneauth1 plugin ")

	home := t.TempDir()
	out := filepath.Join(home, "generated.json")
	args := []string{"--format", "json", "--output-file", out}
	for _, ns := range cat.Namespaces {
		args = append(args, "--namespace", ns)
	}
	run(t, home, gen, args...)
	var generated generatorOutput
	readJSON(t, out, &generated)
	var rt runtimeOutput
	if err := json.Unmarshal(run(t, home, "/usr/bin/python3", "installed.py", plugin), &rt); err != nil {
		t.Fatal(err)
	}

	installed := installedFacts(t, cat, generated, rt)
	made := catalogFacts(cat)
	var disagree []string
	for f := range installed {
		if !made[f] {
			disagree = append(disagree, "installed only: "+f)
		}
	}
	for f := range made {
		if !installed[f] {
			disagree = append(disagree, "catalog only: "+f)
		}
	}
	sort.Strings(disagree)
	seen := map[string]bool{}
	for _, d := range disagree {
		if _, ok := exceptions[d]; ok {
			seen[d] = true
			continue
		}
		t.Errorf("%s", d)
	}
	for e := range exceptions {
		if !seen[e] {
			t.Errorf("listed exception no longer seen, drop it: %s", e)
		}
	}
	t.Logf("compared %d facts (%d in the catalog); %d known exceptions", len(installed), len(made), len(seen))
	if len(made) < 400 {
		t.Errorf("the catalog holds %d facts: too few for glance-api, the generator lost options", len(made))
	}
}

// installedFacts turns the generator's groups into the catalog's shape:
// each store driver's sample group (named after its entry point, lower
// cased by the generator) becomes that driver's options, with the options
// every store section gets; [keystone_authtoken] gets the auth plugin's.
func installedFacts(t *testing.T, cat catalogFile, g generatorOutput, rt runtimeOutput) map[string]bool {
	driverOf := map[string]string{}
	for d, sec := range cat.StoreDrivers {
		for _, ep := range sec.EntryPoints {
			driverOf[strings.ToLower(ep)] = d
		}
	}
	facts := map[string]bool{}
	for group, sec := range g.Options {
		if d, ok := driverOf[group]; ok {
			for _, o := range append(sec.Opts, rt.MultiBackend...) {
				addDriverFacts(facts, d, o)
			}
			continue
		}
		opts := sec.Opts
		if group == "keystone_authtoken" {
			opts = append(opts, rt.Plugin...)
		}
		for _, o := range opts {
			addGroupFacts(facts, group, o)
		}
	}
	if len(facts) == 0 {
		t.Fatal("oslo-config-generator listed no options")
	}
	return facts
}

func (o installedOpt) dest() string {
	if o.Dest != "" {
		return o.Dest
	}
	return norm(o.Name)
}

func (o installedOpt) aliases() [][2]string {
	var out [][2]string
	for _, d := range append(o.DeprecatedOpts, o.Deprecated...) {
		var a [2]string
		if d.Group != nil {
			a[0] = *d.Group
		}
		if d.Name != nil {
			a[1] = norm(*d.Name)
		}
		out = append(out, a)
	}
	return out
}

func addGroupFacts(f map[string]bool, group string, o installedOpt) {
	f[fmt.Sprintf("option [%s] %s", group, o.dest())] = true
	if o.Removal || o.ForRemoval {
		f[fmt.Sprintf("for removal [%s] %s", group, o.dest())] = true
	}
	for _, a := range o.aliases() {
		og, on := or(a[0], group), or(a[1], o.dest())
		if og == group && on == o.dest() {
			continue
		}
		f[fmt.Sprintf("alias [%s] %s -> [%s] %s", og, on, group, o.dest())] = true
	}
}

func addDriverFacts(f map[string]bool, driver string, o installedOpt) {
	f[fmt.Sprintf("driver %s option %s", driver, o.dest())] = true
	if o.Removal || o.ForRemoval {
		f[fmt.Sprintf("driver %s for removal %s", driver, o.dest())] = true
	}
	for _, a := range o.aliases() {
		// The generator names the sample group as the alias's group; an
		// alias in a fixed other section is not a store section's.
		if a[0] != "" && !strings.EqualFold(a[0], driver) && !strings.Contains(a[0], ".") {
			continue
		}
		if on := or(a[1], o.dest()); on != o.dest() {
			f[fmt.Sprintf("driver %s alias %s -> %s", driver, on, o.dest())] = true
		}
	}
}

func catalogFacts(cat catalogFile) map[string]bool {
	f := map[string]bool{}
	for group, sec := range cat.Groups {
		for _, o := range sec.Options {
			f[fmt.Sprintf("option [%s] %s", group, o)] = true
		}
		for _, o := range sec.DeprecatedForRemoval {
			f[fmt.Sprintf("for removal [%s] %s", group, o)] = true
		}
		for og, keys := range sec.Aliases {
			for on, to := range keys {
				f[fmt.Sprintf("alias [%s] %s -> [%s] %s", og, on, to[0], to[1])] = true
			}
		}
	}
	for d, sec := range cat.StoreDrivers {
		for _, o := range sec.Options {
			f[fmt.Sprintf("driver %s option %s", d, o)] = true
		}
		for _, o := range sec.DeprecatedForRemoval {
			f[fmt.Sprintf("driver %s for removal %s", d, o)] = true
		}
		for on, to := range sec.Aliases {
			f[fmt.Sprintf("driver %s alias %s -> %s", d, on, to)] = true
		}
	}
	return f
}

func norm(s string) string { return strings.ReplaceAll(s, "-", "_") }

func or(s, dflt string) string {
	if s == "" {
		return dflt
	}
	return s
}

// run runs a program of the Debian packages in a clean environment (no
// PYTHONPATH or virtualenv of the caller), returning its stdout.
func run(t *testing.T, home, program string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(program, args...)
	cmd.Env = proc.CleanEnv(home)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", program, strings.Join(args, " "), err, stderr.String())
	}
	return out
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
