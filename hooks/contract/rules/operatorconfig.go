package rules

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/excerpt"
	"github.com/c5c3/glance-hooks/hooks/contract/extraconf"
	"github.com/c5c3/glance-hooks/hooks/contract/inivalue"
	"github.com/c5c3/glance-hooks/hooks/contract/optioncatalog"
	"github.com/c5c3/glance-hooks/hooks/contract/problem"
	"github.com/c5c3/glance-hooks/hooks/contract/release"
	"github.com/c5c3/glance-hooks/hooks/contract/storeconf"
)

// Checks of what an operator writes into glance-api.conf by hand:
// spec.extraConfig and spec.plugins. Paths are relative to the Glance's
// spec. spec.middleware's and spec.policyOverrides's rules are their spec
// parts (hooks/contract/api/middleware.go, policy.go).

// catalogStores are the store sections glance-api.conf itself holds: the
// reserved staging and tasks stores, file stores. An S3 store's section
// is in backends.conf, rendered from its GlanceBackend, so extraConfig
// cannot reach it and the catalog does not know it as a section.
var catalogStores = optioncatalog.StoreSections{"os_glance_staging_store": "file", "os_glance_tasks_store": "file"}

// operatorConfigProblems checks the two blocks; the warnings say what is
// accepted but deserves a look (a deprecated option name, a release
// without a catalog).
func operatorConfigProblems(s api.GlanceSpec) (problem.List, []string) {
	f := extraConfigProblems(extraConfigAt{field.NewPath("extraConfig"), specPath.Child("extraConfig"), extraconf.OnGlance},
		s.OpenStackRelease, s.ExtraConfig)
	l := append(f.l, pluginProblems(s.Plugins)...)
	return l, append(f.warnings, uncheckedWarning(specPath.Child("extraConfig").String(), f)...)
}

// extraConfigAt is where an extraConfig block is written: rel (relative,
// as problems are), whole (the whole path: warnings are not re-rooted),
// and root, the path of the Glance fields a refusal names on that object.
type extraConfigAt struct {
	rel, whole *field.Path
	root       string
}

// extraConfigProblems checks an extraConfig block: every line can be
// written, no key a guarded field owns, and every section and key is an
// option of the release's glance-api. Whether the release had a catalog
// to check against is left to the caller to say (uncheckedWarning): a
// ControlPlane says it once of the two blocks it merges.
func extraConfigProblems(where extraConfigAt, releaseName string, ec map[string]map[string]string) *optionFindings {
	at, warnAt := where.rel, where.whole
	rel, relErr := release.Parse(releaseName)
	f := &optionFindings{at: at, rel: rel}
	if len(ec) == 0 {
		return f
	}
	for _, section := range slices.Sorted(maps.Keys(ec)) {
		keys := ec[section]
		if p := referenceSectionProblem(section); p != "" {
			f.l = append(f.l, problem.At(at, "%s", p))
			continue
		}
		if p := sectionProblem(section); p != "" {
			f.l = append(f.l, problem.At(at, "section %s %s", excerpt.Value(section), p))
			continue
		}
		if len(keys) == 0 {
			f.l = append(f.l, problem.Invalid(at.Key(section), "is empty: name at least one option or leave the section out"))
		}
		for _, key := range slices.Sorted(maps.Keys(keys)) {
			if p := referenceLineProblem(at.Key(section), key, keys[key]); p != nil {
				f.l = append(f.l, *p)
				continue
			}
			lp := lineProblems(lineAt{at.Key(section), where.root, extraconf.InExtraConfig}, section, key, keys[key])
			f.l = append(f.l, lp...)
			if len(lp) > 0 || relErr != nil {
				continue // the release is checked at spec.openStackRelease
			}
			f.check(warnAt, rel, section, key)
		}
	}
	return f
}

// optionFindings are what the release's option catalog says of an
// extraConfig block's lines: refusals at at, warnings, and whether the
// release rel has no catalog to check them against.
type optionFindings struct {
	at        *field.Path
	rel       release.Release
	l         problem.List
	warnings  []string
	noCatalog bool
}

// uncheckedWarning is the reference's warning that what (a block, or
// the merge of blocks) was not checked: a block of found had a line and
// its release no catalog. None when every line was checked.
func uncheckedWarning(what string, found ...*optionFindings) []string {
	for _, f := range found {
		if f.noCatalog {
			return []string{fmt.Sprintf("%s was not validated against an option catalog: no catalog for release %q is embedded in this operator build", what, f.rel)}
		}
	}
	return nil
}

// check looks one option up in the release's catalog; a warning names the
// whole path warnAt, as kubectl prints it without the object.
func (f *optionFindings) check(warnAt *field.Path, rel release.Release, section, key string) {
	v := optioncatalog.Lookup(rel, section, key, catalogStores)
	switch v.Status {
	case optioncatalog.NoCatalog:
		f.noCatalog = true
	case optioncatalog.Unknown:
		f.l = append(f.l, problem.At(f.at.Key(section).Key(key), "%s", unknownOption(rel, section)))
	case optioncatalog.Deprecated:
		f.warnings = append(f.warnings, fmt.Sprintf("%s [%s] %s: deprecated option in glance %s, replaced by %s",
			warnAt, section, key, rel, v.Replacement))
	case optioncatalog.Known:
		if v.ForRemoval {
			f.warnings = append(f.warnings, fmt.Sprintf("%s [%s] %s: deprecated option in glance %s with no replacement", warnAt, section, key, rel))
		}
	}
}

// unknownOption is the refusal of an option the release does not have, in
// the reference's words; an unknown section adds where an S3 store's
// options go instead.
func unknownOption(rel release.Release, section string) string {
	c, _ := optioncatalog.For(rel)
	if c != nil && !c.HasSection(section) {
		return fmt.Sprintf("no such section in the glance %s option catalog (sections registered by a loaded plugin must be declared via spec.plugins): "+
			"an S3 store's options go in its GlanceBackend's spec.extraOptions", rel)
	}
	return fmt.Sprintf("no such option in the glance %s option catalog", rel)
}

// referenceSectionProblem is the reference's refusal of an extraConfig
// section name, in its words, "" when it has none.
func referenceSectionProblem(s string) string {
	switch {
	case s == "":
		return "extraConfig section name must not be empty"
	case inivalue.LineBreak(s):
		return "extraConfig section name must not contain a newline or carriage return"
	}
	return ""
}

// referenceLineProblem is the reference's refusal of an extraConfig line,
// at the section's path, in its words: an empty key, or a newline or
// carriage return in the key or the value. Nil when it has none.
func referenceLineProblem(at *field.Path, key, value string) *problem.Problem {
	var p problem.Problem
	switch {
	case key == "":
		p = problem.At(at, "extraConfig key must not be empty")
	case inivalue.LineBreak(key) || inivalue.LineBreak(value):
		p = problem.At(problem.Key(at, key), "extraConfig key and value must not contain a newline or carriage return: "+
			"the rendered INI writes them verbatim, so a newline injects arbitrary config lines")
	default:
		return nil
	}
	return &p
}

// sectionProblem says why a section name cannot be written, "" when it can.
func sectionProblem(s string) string {
	switch {
	case s == "":
		return "is empty"
	case inivalue.LineBreak(s):
		return "contains a newline or carriage return, which would start a line of glance-api.conf past every check"
	case strings.ContainsAny(s, "[]") || inivalue.ValueProblem(s) != "":
		return "is not a section name: no brackets, control characters or surrounding whitespace"
	}
	return ""
}

// lineAt is where an option line is written: the section's path, where
// the object has the Glance's fields (extraconf.OnGlance, OnControlPlane)
// and the block (extraconf.InExtraConfig, InPluginConfig).
type lineAt struct {
	at          *field.Path
	root, block string
}

// lineProblems checks one option line of a section an operator writes
// (extraConfig or a plugin).
func lineProblems(where lineAt, section, key, value string) problem.List {
	at := where.at
	switch {
	case inivalue.LineBreak(key):
		return problem.List{problem.At(at, "option %s contains a newline or carriage return, which would start a line of glance-api.conf past every check", excerpt.Value(key))}
	case storeconf.ValidateKey(key) != nil:
		return problem.List{problem.At(at, "option %s is not an option name: letters, digits and '_'", excerpt.Value(key))}
	}
	if g, ok := extraconf.Guarded(section, key, value); ok {
		return problem.List{problem.At(at.Key(key), "%s", g.Message(section, key, where.root, where.block))}
	}
	if inivalue.LineBreak(value) {
		return problem.List{problem.Invalid(at.Key(key), "contains a newline or carriage return, which would start a line of glance-api.conf past every check")}
	}
	return api.ValueProblems(at.Key(key), value)
}

// pluginProblems checks spec.plugins: one entry per section, each line
// writable and no guarded key. Their sections are not held to the catalog:
// a plugin or driver registers its options when it loads. A plugin's name
// is rendered nowhere (it names the entry for its reader), so, as in the
// reference, any name is taken.
func pluginProblems(plugins []api.PluginSpec) problem.List {
	var l problem.List
	seen := map[string]bool{}
	for i, p := range plugins {
		at := field.NewPath("plugins").Index(i)
		if sp := sectionProblem(p.ConfigSection); sp != "" {
			l = append(l, problem.Invalid(at.Child("configSection"), "%s", sp))
			continue
		}
		if seen[p.ConfigSection] {
			l = append(l, problem.Invalid(at.Child("configSection"), "names a section another entry has: each section is one entry"))
		}
		seen[p.ConfigSection] = true
		for _, key := range slices.Sorted(maps.Keys(p.Config)) {
			l = append(l, lineProblems(lineAt{at.Child("config"), extraconf.OnGlance, extraconf.InPluginConfig}, p.ConfigSection, key, p.Config[key])...)
		}
	}
	return l
}

// controlPlaneExtraConfigProblems checks the two blocks a ControlPlane
// merges into its Glance's extraConfig, each where it is written.
func controlPlaneExtraConfigProblems(cp *api.ControlPlane) (problem.List, []string) {
	rel := cmp.Or(cp.Spec.OpenStackRelease, api.DefaultOpenStackRelease)
	global := extraConfigProblems(extraConfigAt{field.NewPath("globalExtraConfig"), specPath.Child("globalExtraConfig"), extraconf.OnControlPlane},
		rel, cp.Spec.GlobalExtraConfig)
	own := extraConfigProblems(extraConfigAt{field.NewPath("extraConfig"), glanceServicePath.Child("extraConfig"), extraconf.OnControlPlane},
		rel, cp.Spec.Services.Glance.ExtraConfig)
	warnings := append(global.warnings, own.warnings...)
	// The reference checks the merge of the two blocks, and says once that
	// it could not.
	warnings = append(warnings, uncheckedWarning("the merged glance extraConfig", global, own)...)
	warnings = append(warnings, ownedKeyWarnings(cp)...)
	return append(problem.Wrap(specPath, global.l), problem.Wrap(glanceServicePath, own.l)...), warnings
}

// ownedKeyWarnings are the reference ControlPlane's warnings for the keys
// the hooks own that the merge of globalExtraConfig and
// services.glance.extraConfig overrides: the projected Glance honours them
// and reports them (ExtraConfigHealthy), and the ControlPlane's author
// hears of it at once. Each names the blocks that set the key.
func ownedKeyWarnings(cp *api.ControlPlane) []string {
	blocks := []struct {
		at *field.Path
		ec map[string]map[string]string
	}{{specPath.Child("globalExtraConfig"), cp.Spec.GlobalExtraConfig}, {glanceServicePath.Child("extraConfig"), cp.Spec.Services.Glance.ExtraConfig}}
	merged := map[[2]string][]string{}
	for _, b := range blocks {
		for section, keys := range b.ec {
			for key := range keys {
				if k := [2]string{section, key}; extraconf.Owned(section, key) {
					merged[k] = append(merged[k], b.at.Key(section).Key(key).String())
				}
			}
		}
	}
	var out []string
	for _, k := range slices.SortedFunc(maps.Keys(merged), func(a, b [2]string) int { return cmp.Compare(a[0]+"\x00"+a[1], b[0]+"\x00"+b[1]) }) {
		out = append(out, extraconf.OwnedOverrideWarning(k[0], k[1], merged[k]))
	}
	return out
}
