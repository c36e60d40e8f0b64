"""Where each project's sources are, and which version of each a release uses.

A release's libraries are the versions openstack/requirements pins in
upper-constraints.txt on that release's branch; each is read at the git tag
of that version. A catalog can instead pin versions explicitly (the Debian
cross-check pins the versions Debian ships).
"""

import configparser
import os
import re
import subprocess
import tomllib

# Git repository (under the sources directory) -> (distribution name in
# upper-constraints.txt, Python packages it holds).
REPOS = {
    'glance': ('glance', ['glance']),
    'glance_store': ('glance-store', ['glance_store']),
    'keystonemiddleware': ('keystonemiddleware', ['keystonemiddleware']),
    'keystoneauth': ('keystoneauth1', ['keystoneauth1']),
    'castellan': ('castellan', ['castellan']),
    'os-brick': ('os-brick', ['os_brick']),
    'osprofiler': ('osprofiler', ['osprofiler']),
    'oslo.concurrency': ('oslo.concurrency', ['oslo_concurrency']),
    'oslo.db': ('oslo.db', ['oslo_db']),
    'oslo.limit': ('oslo.limit', ['oslo_limit']),
    'oslo.log': ('oslo.log', ['oslo_log']),
    'oslo.messaging': ('oslo.messaging', ['oslo_messaging']),
    'oslo.middleware': ('oslo.middleware', ['oslo_middleware']),
    'oslo.policy': ('oslo.policy', ['oslo_policy']),
    'oslo.reports': ('oslo.reports', ['oslo_reports']),
}
REQUIREMENTS = 'requirements'


class SourceError(Exception):
    pass


def git(gitdir, *args):
    r = subprocess.run(['git', '--git-dir', gitdir] + list(args), capture_output=True)
    if r.returncode != 0:
        raise SourceError('git %s in %s: %s' % (' '.join(args), gitdir, r.stderr.decode().strip()))
    return r.stdout.decode()


def gitdir_of(sources_dir, repo):
    """The git directory of repo: a bare clone <dir>/<repo> or a checkout
    <dir>/<repo>/.git."""
    base = os.path.join(sources_dir, repo)
    for d in (os.path.join(base, '.git'), base):
        if os.path.isfile(os.path.join(d, 'HEAD')):
            return d
    raise SourceError('no git repository of openstack/%s in %s (clone it there: '
                      'git clone --bare https://opendev.org/openstack/%s %s)'
                      % (repo, sources_dir, repo, base))


def resolve(gitdir, ref):
    """The commit a ref names; branches are tried as remote ones too, since
    a bare clone keeps them either way."""
    for cand in (ref, 'origin/' + ref, 'refs/remotes/origin/' + ref):
        r = subprocess.run(['git', '--git-dir', gitdir, 'rev-parse', '--verify', '-q', cand + '^{commit}'],
                           capture_output=True)
        if r.returncode == 0:
            return r.stdout.decode().strip()
    raise SourceError('%s has no ref %s' % (gitdir, ref))


def upper_constraints(sources_dir, ref):
    """Distribution name (normalized) -> version, from upper-constraints.txt."""
    gd = gitdir_of(sources_dir, REQUIREMENTS)
    text = git(gd, 'show', '%s:upper-constraints.txt' % resolve(gd, ref))
    out = {}
    for line in text.splitlines():
        line = line.split('#')[0].strip()
        if '===' not in line:
            continue
        name, rest = line.split('===', 1)
        version = rest.split(';')[0].strip()
        # A line with an environment marker applies to some Pythons only;
        # the first one (the newest Python's, in this file) wins.
        out.setdefault(normalize(name), version)
    return out


def normalize(dist):
    """A distribution name as PEP 503 compares them (glance_store is
    glance-store)."""
    return re.sub(r'[-_.]+', '-', dist.strip()).lower()


def entry_points(gitdir, commit):
    """group -> [(name, 'module:attr')] from setup.cfg or pyproject.toml."""
    out = {}
    try:
        cfg = configparser.ConfigParser(interpolation=None)
        cfg.read_string(git(gitdir, 'show', '%s:setup.cfg' % commit))
        if cfg.has_section('entry_points'):
            for group, value in cfg.items('entry_points'):
                for line in value.splitlines():
                    line = line.split('#')[0].strip()
                    if '=' in line:
                        n, v = line.split('=', 1)
                        out.setdefault(group, []).append((n.strip(), v.strip()))
    except SourceError:
        pass
    try:
        doc = tomllib.loads(git(gitdir, 'show', '%s:pyproject.toml' % commit))
        for group, items in doc.get('project', {}).get('entry-points', {}).items():
            for n, v in items.items():
                out.setdefault(group, []).append((n, v))
    except SourceError:
        pass
    return out
