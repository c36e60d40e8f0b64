#!/usr/bin/env python3
"""Writes the option catalogs of glance-api, one JSON file per release.

Usage: generate.py --sources DIR --releases FILE --out DIR [--only NAME]

DIR holds a git repository (bare clone or checkout) of each project in
sources.REPOS plus openstack/requirements, named as in REPOS. FILE
(releases.json beside this script) says which catalogs to write and at
which refs. See docs/catalogs.md.

What a catalog holds is what oslo-config-generator would list for
glance-api's namespaces (etc/oslo-config-generator/glance-api.conf and
glance-image-import.conf of that glance), read from the sources with
pystatic, plus what glance-api registers at runtime beyond those lists
(RUNTIME below).
"""

import argparse
import json
import os
import sys

import pystatic
import sources

# Generator config files of glance whose namespaces glance-api loads: the
# image import options are read by glance-api too (from
# glance-image-import.conf, or any file it is given).
GENERATOR_FILES = ['etc/oslo-config-generator/glance-api.conf',
                   'etc/oslo-config-generator/glance-image-import.conf']

STORE_NAMESPACE = 'glance.multi_store'
STORE_GROUP = 'glance_store'
DRIVERS_ENTRY = 'glance_store.drivers'
BASE_STORE = 'glance_store.driver.Store'

# The keystoneauth plugin whose options keystonemiddleware registers in
# [keystone_authtoken] when `auth_type = password` (what the hooks render);
# oslo-config-generator lists only auth_type and auth_section there.
AUTHTOKEN_PLUGIN = 'password'


class Generator:
    def __init__(self, sources_dir, spec):
        self.sources_dir = sources_dir
        self.spec = spec
        self.src = pystatic.Sources()
        self.entry = {}      # entry point group -> [(name, target)]
        self.used = {}       # repo -> {'ref', 'commit'}
        self._pin()
        self.interp = pystatic.Interpreter(self.src, self._shims())

    def _pin(self):
        glance_ref = self.spec['glance']
        versions = dict(self.spec.get('versions', {}))
        if 'constraints' in self.spec:
            uc = sources.upper_constraints(self.sources_dir, self.spec['constraints'])
            gd = sources.gitdir_of(self.sources_dir, sources.REQUIREMENTS)
            self.used['requirements'] = {'ref': self.spec['constraints'],
                                         'commit': sources.resolve(gd, self.spec['constraints'])}
            for repo, (dist, _) in sources.REPOS.items():
                if repo != 'glance' and repo not in versions:
                    if sources.normalize(dist) not in uc:
                        raise sources.SourceError('upper-constraints.txt at %s pins no %s'
                                                  % (self.spec['constraints'], dist))
                    versions[repo] = uc[sources.normalize(dist)]
        versions['glance'] = glance_ref
        for repo, (_, packages) in sources.REPOS.items():
            if repo not in versions:
                raise sources.SourceError('no version of %s for %s' % (repo, self.spec))
            gd = sources.gitdir_of(self.sources_dir, repo)
            self.used[repo] = self._locate(gd, repo, versions[repo])
            commit = self.used[repo]['commit']
            for p in packages:
                self.src.add(p, gd, commit)
            for group, items in sources.entry_points(gd, commit).items():
                self.entry.setdefault(group, []).extend(items)

    def _locate(self, gd, repo, ref):
        """The commit of a version tag, or, when the clone lacks the tag of
        a point release, the head of the release's stable branch of that
        library (where its point releases are tagged); the catalog records
        which it used."""
        try:
            return {'ref': ref, 'commit': sources.resolve(gd, ref)}
        except sources.SourceError:
            branch = self.spec.get('constraints')
            if repo == 'glance' or not branch or not branch.startswith('stable/'):
                raise
            return {'ref': branch, 'commit': sources.resolve(gd, branch), 'constrained': ref}

    # ---- plugin machinery, answered from the entry points ---------------

    def _target(self, group, name):
        for n, target in self.entry.get(group, []):
            if n == name:
                mod, _, attr = target.partition(':')
                return self.interp.resolve_dotted(mod + '.' + attr)
        raise pystatic.EvalError('no entry point %s in %s' % (name, group))

    def _extension_manager(self, interp, args, kwargs):
        ns = args[0] if args else kwargs['namespace']
        invoke = kwargs.get('invoke_on_load', False)
        exts = []
        for name, _ in self.entry.get(ns, []):
            plugin = self._target(ns, name)
            obj = interp.call(plugin, list(kwargs.get('invoke_args', ())), {}) if invoke else None
            exts.append(_Py(name=name, plugin=plugin, obj=obj))
        return _Py(items={e.pyattrs['name']: e for e in exts}, iter=exts,
                   names=pystatic.Builtin('names', lambda: [e.pyattrs['name'] for e in exts]))

    def _driver_manager(self, interp, args, kwargs):
        ns, name = kwargs['namespace'], kwargs['name']
        plugin = self._target(ns, name)
        return _Py(driver=interp.call(plugin, [], {}) if kwargs.get('invoke_on_load') else plugin)

    def _load_store_class(self, interp, args, kwargs):
        # glance_store's _load_store / _load_multi_store(conf, entry, invoke):
        # the driver class an entry point names (with invoke False, as the
        # option listing calls them).
        return self._target(DRIVERS_ENTRY, args[1])

    def _shims(self):
        s = {}
        for q in ('stevedore.ExtensionManager', 'stevedore.extension.ExtensionManager'):
            s[q] = self._extension_manager
        for q in ('stevedore.DriverManager', 'stevedore.driver.DriverManager'):
            s[q] = self._driver_manager
        for q in ('glance_store.backend._load_store', 'glance_store.multi_backend._load_multi_store'):
            s[q] = self._load_store_class
        return s

    # ---- the catalog ----------------------------------------------------

    def namespaces(self):
        gd = sources.gitdir_of(self.sources_dir, 'glance')
        out = []
        for f in GENERATOR_FILES:
            text = sources.git(gd, 'show', '%s:%s' % (self.used['glance']['commit'], f))
            for line in text.splitlines():
                k, _, v = line.partition('=')
                if k.strip() == 'namespace' and v.strip() not in out:
                    out.append(v.strip())
        return out

    def list_namespace(self, ns):
        for name, target in self.entry.get('oslo.config.opts', []):
            if name == ns:
                mod, _, func = target.partition(':')
                fn = self.interp.resolve_dotted(mod + '.' + func)
                try:
                    result = self.interp.call(fn, [], {})
                except pystatic.EvalError as e:
                    raise pystatic.EvalError('namespace %s (%s): %s' % (ns, target, e))
                return [(_group_name(g), self._opts(ns, opts)) for g, opts in self.interp.iterate(result)]
        raise sources.SourceError('no project registers the oslo.config namespace %s' % ns)

    def _opts(self, ns, opts):
        out = []
        for o in self.interp.iterate(opts):
            if not isinstance(o, pystatic.Opt):
                raise pystatic.EvalError('namespace %s lists %r where an option belongs' % (ns, o))
            out.append(o)
        return out

    def store_drivers(self):
        """Driver type -> (entry point names, options): what a store section
        of that type takes (glance_store registers the driver's OPTIONS in
        each section enabled_backends names)."""
        by_class = {}
        for name, _ in self.entry.get(DRIVERS_ENTRY, []):
            cls = self._target(DRIVERS_ENTRY, name)
            opts = self.interp.getattr(cls, 'OPTIONS')
            if not isinstance(opts, list):
                continue  # a test driver without options (no_conf)
            by_class.setdefault(id(cls), ([], opts + self._multi_backend_opts(cls)))[0].append(name)
        out = {}
        for names, opts in by_class.values():
            short = sorted(n for n in names if '.' not in n)
            if short:
                out[short[0]] = (sorted(names), self._opts(DRIVERS_ENTRY, opts))
        return out

    def _multi_backend_opts(self, cls):
        """What a driver registers in its store section beyond OPTIONS when
        it runs as one of enabled_backends (store_description, weight):
        glance_store's Store.__init__ adds MULTI_BACKEND_OPTIONS, which
        oslo-config-generator does not list. The swift driver's Store is a
        factory function: its classes inherit the base Store's."""
        opts = self.interp.getattr(cls, 'MULTI_BACKEND_OPTIONS')
        if not isinstance(opts, list):
            opts = self.interp.getattr(self.interp.resolve_dotted(BASE_STORE), 'MULTI_BACKEND_OPTIONS')
        return opts if isinstance(opts, list) else []

    def authtoken_plugin_opts(self):
        loader = self._target('keystoneauth1.plugin', AUTHTOKEN_PLUGIN)
        inst = self.interp.call(loader, [], {})
        opts = self.interp.call(self.interp.getattr(inst, 'get_options'), [], {})
        return self._opts('keystoneauth1.plugin ' + AUTHTOKEN_PLUGIN, opts)

    def catalog(self, name):
        groups = {}
        namespaces = self.namespaces()
        for ns in namespaces:
            for group, opts in self.list_namespace(ns):
                if ns == STORE_NAMESPACE and group != STORE_GROUP:
                    continue  # a driver's sample section: see store_drivers
                groups.setdefault(group, []).extend(opts)
        groups.setdefault('keystone_authtoken', []).extend(self.authtoken_plugin_opts())
        drivers = self.store_drivers()
        cat = {
            'release': name,
            'namespaces': sorted(namespaces),
            'runtime': {'keystone_authtoken': 'keystoneauth1 plugin ' + AUTHTOKEN_PLUGIN,
                        'storeDrivers': BASE_STORE + '.MULTI_BACKEND_OPTIONS'},
            'sources': {k: self.used[k] for k in sorted(self.used)},
            'groups': {},
            'storeDrivers': {},
        }
        for g in sorted(groups):
            cat['groups'][g] = _section(g, groups[g], own_section=False)
        for d in sorted(drivers):
            names, opts = drivers[d]
            sec = _section(None, opts, own_section=True)
            sec['entryPoints'] = names
            cat['storeDrivers'][d] = sec
        return cat


class _Py:
    """A plain object the shims hand to the evaluated code."""

    def __init__(self, items=None, iter=None, **attrs):
        self.pyattrs = attrs
        self._items, self._iter = items or {}, iter or []

    def __getitem__(self, k):
        return self._items[k]

    def __iter__(self):
        return iter(self._iter)


def _group_name(g):
    if g is None:
        return 'DEFAULT'
    if isinstance(g, pystatic.OptGroup):
        return g.name
    if isinstance(g, str):
        return g
    raise pystatic.EvalError('a group that is not a name: %r' % (g,))


def _section(group, opts, own_section):
    """One section's options, sorted: names, those deprecated for removal,
    and deprecated aliases. In a group's entry an alias is keyed by the
    section it is read from; in a store driver's only aliases within the
    same section exist (a store section has no fixed name)."""
    names, removal, aliases = set(), set(), {}
    for o in opts:
        names.add(o.name)
        if o.for_removal:
            removal.add(o.name)
        for dgroup, dname in o.deprecated:
            old = dname or o.name
            if old == o.name and (dgroup is None or dgroup == group):
                continue  # the option's own name: no alias (oslo.messaging lists some)
            if own_section:
                if dgroup is not None:
                    continue  # read from a fixed section: not a store's alias
                aliases[old] = o.name
            else:
                og = dgroup or group
                aliases.setdefault(og, {})
                prev = aliases[og].get(old)
                new = [group, o.name]
                if prev is None or new < prev:
                    aliases[og][old] = new
    out = {'options': sorted(names)}
    if removal:
        out['deprecatedForRemoval'] = sorted(removal)
    if aliases:
        out['aliases'] = ({k: aliases[k] for k in sorted(aliases)} if own_section else
                          {g: {k: aliases[g][k] for k in sorted(aliases[g])} for g in sorted(aliases)})
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--sources', default=os.environ.get('OPENSTACK_SOURCES'),
                   help='directory of git repositories (env OPENSTACK_SOURCES)')
    p.add_argument('--releases', required=True)
    p.add_argument('--out', required=True, help='directory the catalogs are written to')
    p.add_argument('--only', action='append', help='write only these catalogs')
    a = p.parse_args()
    if not a.sources or not os.path.isdir(a.sources):
        sys.exit('generate.py needs the sources: set OPENSTACK_SOURCES (or --sources) to a directory '
                 'holding git clones named %s and requirements (see docs/catalogs.md)'
                 % ', '.join(sorted(sources.REPOS)))
    with open(a.releases) as f:
        specs = json.load(f)
    os.makedirs(a.out, exist_ok=True)
    for name in sorted(specs):
        if a.only and name not in a.only:
            continue
        try:
            cat = Generator(a.sources, specs[name]).catalog(name)
        except (sources.SourceError, pystatic.EvalError) as e:
            sys.exit('catalog %s: %s' % (name, e))
        path = os.path.join(a.out, name + '.json')
        with open(path, 'w') as f:
            json.dump(cat, f, indent=1, sort_keys=False)
            f.write('\n')
        n = sum(len(g['options']) for g in cat['groups'].values())
        print('%s: %d options in %d sections, %d store drivers' % (path, n, len(cat['groups']), len(cat['storeDrivers'])))


if __name__ == '__main__':
    main()
