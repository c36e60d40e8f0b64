#!/usr/bin/env python3
"""Writes, per release, the paste factories Glance's own paste file names.

Usage: paste_factories.py --sources DIR --catalogs DIR --out DIR

For each option catalog in --catalogs (<release>.json, written by
generate.py), reads etc/glance-api-paste.ini of the glance commit that
catalog was made from and writes <release>.json into --out: every
factory its sections name, as [key, factory] pairs (paste.app_factory,
paste.filter_factory, paste.composite_factory), sorted. A test holds every
factory of the paste file the hooks render to these lists
(TestPasteFactoriesShipWithGlance, hooks/glance/paste_test.go): a factory that the release's Glance does
not ship in the same role, such as oslo.middleware's healthcheck built as
a filter, which oslo.middleware from 2026.1 refuses, fails it.
"""

import argparse
import configparser
import json
import os
import sys

import sources

PASTE_FILE = 'etc/glance-api-paste.ini'
FACTORY_KEYS = ('paste.app_factory', 'paste.filter_factory', 'paste.composite_factory',
                'paste.filter_app_factory', 'paste.server_factory')


def factories(text):
    """The [key, factory] pairs of a paste file's sections, sorted."""
    parser = configparser.RawConfigParser(delimiters=('=', ':'), strict=False)
    parser.optionxform = str
    parser.read_string(text)
    pairs = set()
    for section in parser.sections():
        for key in FACTORY_KEYS:
            if parser.has_option(section, key):
                pairs.add((key, parser.get(section, key).strip()))
    return [list(p) for p in sorted(pairs)]


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--sources', default=os.environ.get('OPENSTACK_SOURCES'),
                   help='directory of git repositories (env OPENSTACK_SOURCES)')
    p.add_argument('--catalogs', required=True, help='directory of the option catalogs')
    p.add_argument('--out', required=True, help='directory the lists are written to')
    a = p.parse_args()
    if not a.sources or not os.path.isdir(a.sources):
        sys.exit('paste_factories.py needs the sources: set OPENSTACK_SOURCES (or --sources) to a directory '
                 'holding a git clone of glance (see docs/catalogs.md)')
    gitdir = sources.gitdir_of(a.sources, 'glance')
    os.makedirs(a.out, exist_ok=True)
    for name in sorted(os.listdir(a.catalogs)):
        if not name.endswith('.json'):
            continue
        with open(os.path.join(a.catalogs, name)) as f:
            cat = json.load(f)
        glance = cat['sources']['glance']
        try:
            text = sources.git(gitdir, 'show', '%s:%s' % (glance['commit'], PASTE_FILE))
        except sources.SourceError as e:
            sys.exit('%s: %s' % (name, e))
        out = {'release': cat['release'], 'glance': glance, 'file': PASTE_FILE, 'factories': factories(text)}
        path = os.path.join(a.out, name)
        with open(path, 'w') as f:
            json.dump(out, f, indent=1)
            f.write('\n')
        print('%s: %d factories' % (path, len(out['factories'])))


if __name__ == '__main__':
    main()
