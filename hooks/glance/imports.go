package glance

import (
	"errors"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/inivalue"
	"github.com/c5c3/glance-hooks/hooks/contract/problem"
	"github.com/c5c3/glance-hooks/hooks/contract/storeconf"
	"github.com/c5c3/glance-hooks/hooks/glance/render"
)

// importsConf is the import methods and the staging and tasks areas of
// the import flows.
func importsConf(in render.ConfInput) (render.ConfPart, error) {
	return render.ConfPart{
		// Explicit, so a release changing its default changes nothing here.
		// oslo.config wants this list in brackets.
		Defaults: []storeconf.Option{{Key: "enabled_import_methods", Value: "[" + strings.Join(in.Spec.ImportMethods, ",") + "]"}},
		Sections: []storeconf.Section{
			{Name: "os_glance_staging_store", Options: []storeconf.Option{{Key: "filesystem_store_datadir", Value: render.StagingDir}}},
			{Name: "os_glance_tasks_store", Options: []storeconf.Option{{Key: "filesystem_store_datadir", Value: render.TasksDir}}},
			// What a task flow reads as its work directory when it does not
			// take the tasks store: the same bounded tasks volume.
			{Name: "task", Options: []storeconf.Option{{Key: "work_dir", Value: render.TasksDir}}},
		},
	}, nil
}

// uriFilterConf is [import_filtering_opts], the filter every URI a user
// hands glance-api to fetch (web-download) passes first. All six lists are
// written on every Glance, empty ones included: a list left out would be
// Glance's own default (http and https, ports 80 and 443, no host denied),
// which reaches the metadata address and the API server. So web-download,
// when importMethods lists it, always has this filter in front of it.
func uriFilterConf(in render.ConfInput) (render.ConfPart, error) {
	if l := api.ImportFilterProblems(in.Spec.ImportFiltering); len(l) > 0 {
		return render.ConfPart{}, errors.New(problem.Wrap(field.NewPath("spec"), l).String())
	}
	f := api.ResolveImportFilter(in.Spec.ImportFiltering)
	return render.ConfPart{Sections: []storeconf.Section{{Name: "import_filtering_opts", Options: []storeconf.Option{
		{Key: "allowed_schemes", Value: inivalue.BracketList(f.AllowedSchemes)},
		{Key: "disallowed_schemes", Value: inivalue.BracketList(f.DisallowedSchemes)},
		{Key: "allowed_hosts", Value: inivalue.BracketList(f.AllowedHosts)},
		{Key: "disallowed_hosts", Value: inivalue.BracketList(f.DisallowedHosts)},
		{Key: "allowed_ports", Value: inivalue.PortList(f.AllowedPorts)},
		{Key: "disallowed_ports", Value: inivalue.PortList(f.DisallowedPorts)},
	}}}}, nil
}

// pluginsConf is [image_import_opts] image_import_plugins, always
// written ("[]" says no plugin; left out, a release's default would
// decide), and the section of each plugin it enables.
func pluginsConf(in render.ConfInput) (render.ConfPart, error) {
	p := in.Spec.ImportPlugins
	if l := api.ImportPluginsProblems(p); len(l) > 0 {
		return render.ConfPart{}, errors.New(problem.Wrap(field.NewPath("spec"), l).String())
	}
	sections := []storeconf.Section{{Name: "image_import_opts", Options: []storeconf.Option{
		{Key: "image_import_plugins", Value: inivalue.BracketList(api.EnabledImportPlugins(p))},
	}}}
	if p == nil {
		return render.ConfPart{Sections: sections}, nil
	}
	if c := p.Conversion; c != nil {
		format := c.OutputFormat
		if format == "" {
			format = api.DefaultConversionFormat
		}
		sections = append(sections, storeconf.Section{Name: "image_conversion", Options: []storeconf.Option{{Key: "output_format", Value: format}}})
		if in.Mode == render.UWSGI {
			// The plugin runs qemu-img under oslo.concurrency's prlimit,
			// started with [wsgi] python_interpreter, whose default is
			// sys.executable: the uWSGI binary under uWSGI, which would
			// start a server and never return. The image's python3 (first
			// on its PATH) has oslo.concurrency.
			sections = append(sections, storeconf.Section{Name: "wsgi", Options: []storeconf.Option{{Key: "python_interpreter", Value: "python3"}}})
		}
	}
	if m := p.InjectMetadata; m != nil {
		sections = append(sections, storeconf.Section{Name: "inject_metadata_properties", Options: injectOptions(*m)})
	}
	return render.ConfPart{Sections: sections}, nil
}

// injectOptions are the inject plugin's properties, sorted by name so the
// config's hash does not depend on map order, and the roles it ignores.
// ignore_user_roles is an unbounded list: brackets would become part of
// the first and last role's name.
func injectOptions(m api.ImportInjectMetadataSpec) []storeconf.Option {
	roles := m.IgnoreUserRoles
	if roles == nil {
		roles = api.DefaultIgnoreUserRoles()
	}
	return []storeconf.Option{
		{Key: "inject", Value: inivalue.DictValue(m.Properties)},
		{Key: "ignore_user_roles", Value: strings.Join(roles, ",")},
	}
}
