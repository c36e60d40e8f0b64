// Package render is the Glance hook's third stage: the objects and files a
// sync returns, from the decision. Its config files take the features'
// contributions as values (FileParts), so it never reads the hook's list
// of features.
package render

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/contract/release"
	"github.com/c5c3/glance-hooks/hooks/contract/storeconf"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
	"github.com/c5c3/glance-hooks/hooks/glance/observe"
)

// ConfigData is the config ConfigMap's data for a launch mode before the
// features add their files: glance-api.conf, the paste pipeline and, for
// uWSGI, its ini.
func ConfigData(conf string, spec api.GlanceSpec, mode LaunchMode) map[string]string {
	data := map[string]string{names.ConfigFile: conf, PasteFile: PasteIni}
	if mode == UWSGI {
		data[UWSGIFile] = RenderUWSGI(spec)
	}
	return data
}

// ConfInput is what glance-api.conf is rendered from.
type ConfInput struct {
	Glance *api.Glance
	Spec   api.GlanceSpec
	// Rel is the release glance-api runs (during an upgrade, not yet the
	// spec's), mode its launch mode.
	Rel    release.Release
	Mode   LaunchMode
	Stores []*model.Store
	Def    *model.Store
	// Files are the features' contributions to the files, in their order.
	Files FileParts
	// Observed is the request as observe read it, for a feature whose file
	// holds what it read there (spec.policyOverrides' rules).
	Observed *observe.Observed
}

// FileParts are what the features add to the config's files: options and
// sections of glance-api.conf, filters of the paste pipeline, and files of
// their own beside glance-api.conf, which each writes into the config
// ConfigMap's data (an error is a spec the file cannot be written from).
type FileParts struct {
	Conf  []func(ConfInput) (ConfPart, error)
	Paste []func(api.GlanceSpec) []PasteFilter
	Data  []func(in ConfInput, data map[string]string) error
}

// ConfPart is what one feature adds to glance-api.conf: options of
// [DEFAULT], and sections of its own.
type ConfPart struct {
	Defaults []storeconf.Option
	Sections []storeconf.Section
}

// LaunchConf is what the launch mode sets in [DEFAULT]: the port, and the
// eventlet server's worker processes (uWSGI has its own processes; from
// 2026.2 Glance has no workers option) and http_keepalive. bind_host comes
// from OS_DEFAULT__BIND_HOST (the pod's IP).
//
// The eventlet server keeps a client's connection open between requests
// by default, and a Service sends every request of an open connection to
// the pod it first chose: a pod taken out of its Service goes on getting
// requests over the connections it holds until SIGTERM, which ends its
// workers with whatever request is in flight. With http_keepalive off
// every answer closes its connection ("Connection: close"), so the next
// request goes through the Service to a pod that serves, as the uWSGI
// mode's http-socket does by default.
func LaunchConf(in ConfInput) (ConfPart, error) {
	defaults := []storeconf.Option{{Key: "bind_port", Value: fmt.Sprint(APIPort)}}
	if in.Mode == Eventlet {
		defaults = append(defaults, storeconf.Option{Key: "workers", Value: fmt.Sprint(*in.Spec.APIServer.Workers)},
			storeconf.Option{Key: "http_keepalive", Value: "false"})
	}
	return ConfPart{Defaults: defaults}, nil
}

// RenderConfig renders glance-api.conf. Secrets never appear in it: the
// database URL and the service user's password reach glance-api as
// environment variables (oslo.config reads OS_<GROUP>__<OPTION>).
func RenderConfig(in ConfInput) (string, error) {
	var defaults []storeconf.Option
	var sections []storeconf.Section
	for _, conf := range in.Files.Conf {
		p, err := conf(in)
		if err != nil {
			return "", model.InvalidSpec("%w", err)
		}
		defaults = append(defaults, p.Defaults...)
		sections = append(sections, p.Sections...)
	}
	all := LayerConf(in, append([]storeconf.Section{{Name: "DEFAULT", Options: defaults}}, sections...))
	conf, err := storeconf.Write(all...)
	if err != nil {
		// Every value written comes from the spec (admission refuses what
		// cannot be written) or from constants.
		return "", model.InvalidSpec("%w", err)
	}
	return conf, nil
}

// StoresConf enables the rendered stores and names the default one; their
// sections are in the backends Secret.
func StoresConf(in ConfInput) (ConfPart, error) {
	return ConfPart{
		Defaults: []storeconf.Option{{Key: "enabled_backends", Value: enabledBackends(in.Stores)}},
		Sections: []storeconf.Section{{Name: "glance_store", Options: []storeconf.Option{{Key: "default_backend", Value: in.Def.ID}}}},
	}, nil
}

// enabledBackends is enabled_backends: "<id>:s3" for each rendered store,
// comma-separated, written into one buffer sized once (a string per store
// and their join cost a thousand allocations at a thousand stores).
func enabledBackends(stores []*model.Store) string {
	size := 0
	for _, s := range stores {
		if s.State.Rendered() {
			size += len(s.ID) + len(":s3,")
		}
	}
	var b strings.Builder
	b.Grow(size)
	for _, s := range stores {
		if !s.State.Rendered() {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(s.ID)
		b.WriteString(":s3")
	}
	return b.String()
}

// RuntimeConf is where glance-api keeps its locks, that it sends no
// notifications, and its paste pipeline.
func RuntimeConf(ConfInput) (ConfPart, error) {
	return ConfPart{Sections: []storeconf.Section{
		{Name: "oslo_concurrency", Options: []storeconf.Option{{Key: "lock_path", Value: LockDir}}},
		{Name: "oslo_messaging_notifications", Options: []storeconf.Option{{Key: "driver", Value: "noop"}}},
		{Name: "paste_deploy", Options: []storeconf.Option{
			{Key: "flavor", Value: PasteFlavor},
			// Named, not searched for: glance looks for it next to the last
			// config file it read, which differs by release and launch mode.
			{Key: "config_file", Value: PasteConfig},
		}},
	}}, nil
}

// RenderBackends concatenates the rendered store sections, sorted by store
// id, each ending in one newline, a blank line between two. It does not
// depend on which store is the default, so switching the default leaves
// the backends Secret's name unchanged. The bytes are sized once and are
// what the Secret carries and its name hashes: at a thousand stores the
// file is a few hundred kilobytes, and joining it from parts, then copying
// it into the Secret and again into the hash, cost four times that.
func RenderBackends(stores []*model.Store) []byte {
	size := 0
	for _, s := range stores {
		if s.State.Rendered() {
			size += len(s.Section) + 2
		}
	}
	out := make([]byte, 0, size)
	for _, s := range stores {
		if !s.State.Rendered() {
			continue
		}
		if len(out) > 0 {
			out = append(out, '\n')
		}
		out = append(append(out, strings.TrimSuffix(s.Section, "\n")...), '\n')
	}
	return out
}

// RenderFiles is the config ConfigMap's data: glance-api.conf, the paste
// pipeline with the features' filters, and the features' files beside
// them. Admission refuses what cannot be written; what still cannot is a
// spec error, and the last-good config is kept.
func RenderFiles(in ConfInput) (map[string]string, error) {
	conf, err := RenderConfig(in)
	if err != nil {
		return nil, err
	}
	data := ConfigData(conf, in.Spec, in.Mode)
	paste, err := RenderPaste(in.Spec, in.Files.Paste)
	if err != nil {
		return nil, model.InvalidSpec("spec.middleware: %w", err)
	}
	data[PasteFile] = paste
	for _, file := range in.Files.Data {
		if err := file(in, data); err != nil {
			return nil, model.InvalidSpec("%w", err)
		}
	}
	return data, nil
}

// LayerConf puts the plugins under the rendered sections and extraConfig
// over them. rendered starts with [DEFAULT]; sections keep the order they
// first appear in, rendered ones first. A section of extraConfig that is an
// S3 store's is left out: store sections are in backends.conf, which
// glance-api reads after glance-api.conf, so a line here would change
// nothing (admission refuses it; skippedStoreSections reports it).
func LayerConf(in ConfInput, rendered []storeconf.Section) []storeconf.Section {
	out := rendered
	for _, p := range in.Spec.Plugins {
		for _, o := range storeconf.SortedOptions(p.Config) {
			out = setOption(out, p.ConfigSection, o, false)
		}
	}
	stores := S3Sections(in.Stores, in.Spec.ExtraConfig)
	for _, name := range slices.Sorted(maps.Keys(in.Spec.ExtraConfig)) {
		if stores[name] {
			continue
		}
		for _, o := range storeconf.SortedOptions(in.Spec.ExtraConfig[name]) {
			out = setOption(out, name, o, true)
		}
	}
	return out
}

// setOption sets o in section name: appended when the key is not there
// (and the section, when it is not), replaced only when override is set.
// The sections are copied on write, so what a feature returned is never
// changed underneath it.
func setOption(sections []storeconf.Section, name string, o storeconf.Option, override bool) []storeconf.Section {
	for i, s := range sections {
		if s.Name != name {
			continue
		}
		opts := slices.Clone(s.Options)
		for j := range opts {
			if opts[j].Key == o.Key {
				if override {
					opts[j].Value = o.Value
				}
				sections[i].Options = opts
				return sections
			}
		}
		sections[i].Options = append(opts, o)
		return sections
	}
	return append(sections, storeconf.Section{Name: name, Options: []storeconf.Option{o}})
}

// S3Sections are the sections among names (spec.extraConfig's) that are
// sections of S3 stores backends.conf holds. Only those are asked for:
// extraConfig names a few sections, and a set of every store's id, made
// twice a sync, cost a thousand entries at a thousand stores.
func S3Sections(stores []*model.Store, names map[string]map[string]string) map[string]bool {
	out := map[string]bool{}
	if len(names) == 0 {
		return out
	}
	for _, s := range stores {
		if _, named := names[s.ID]; named && s.State.Rendered() {
			out[s.ID] = true
		}
	}
	return out
}
