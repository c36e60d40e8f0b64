"""Tests of the static evaluator on small made-up modules (run by
test/catalogs through `python3 -m unittest`)."""

import textwrap
import unittest

import pystatic


class MemorySources(pystatic.Sources):
    def __init__(self, files):
        super().__init__()
        self.files = {k: textwrap.dedent(v) for k, v in files.items()}

    def read(self, modname):
        for path in (modname.replace('.', '/') + '.py', modname.replace('.', '/') + '/__init__.py'):
            if path in self.files:
                return path, self.files[path]
        return None


def listing(files, func, shims=None):
    interp = pystatic.Interpreter(MemorySources(files), shims or {})
    return interp, interp.call(interp.resolve_dotted(func), [], {})


class EvaluatorTest(unittest.TestCase):
    def test_lists_chain_copy_and_aliases(self):
        _, got = listing({
            'p/__init__.py': '',
            'p/a.py': '''
                from oslo_config import cfg
                a_opts = [cfg.StrOpt('one', deprecated_name='uno', default=socket.gethostname()),
                          cfg.IntOpt('two-words', deprecated_group='DEFAULT',
                                     deprecated_for_removal=True)]
            ''',
            'p/opts.py': '''
                import copy, itertools
                import p.a
                from oslo_config import cfg
                extra = [cfg.BoolOpt('three', deprecated_opts=[cfg.DeprecatedOpt('old', group='legacy')])]
                _all = [('grp', list(itertools.chain(p.a.a_opts, extra)))]
                def list_opts():
                    return [(g, copy.deepcopy(o)) for g, o in _all]
            ''',
        }, 'p.opts.list_opts')
        (group, opts), = got
        self.assertEqual('grp', group)
        self.assertEqual(['one', 'two_words', 'three'], [o.name for o in opts])
        self.assertEqual([(None, 'uno')], opts[0].deprecated)
        self.assertEqual([('DEFAULT', None)], opts[1].deprecated)
        self.assertTrue(opts[1].for_removal)
        self.assertEqual([('legacy', 'old')], opts[2].deprecated)

    def test_classes_super_star_import_and_try(self):
        _, got = listing({
            'q/__init__.py': 'from q.base import *\n',
            'q/base.py': '''
                from oslo_config import cfg
                __all__ = ['Base']
                class Base:
                    def get_options(self):
                        return [cfg.StrOpt('base')]
            ''',
            'q/child.py': '''
                from oslo_config import cfg
                import q
                class Child(q.Base):
                    def get_options(self):
                        opts = super().get_options()
                        opts.append(cfg.StrOpt('child'))
                        return opts
                def options(plugin):
                    try:
                        getter = plugin.get_options
                    except AttributeError:
                        getter = None
                    return getter()
                def list_opts():
                    return [(None, options(Child()))]
            ''',
        }, 'q.child.list_opts')
        self.assertEqual(['base', 'child'], [o.name for o in got[0][1]])

    def test_what_it_cannot_follow_is_unknown_then_an_error(self):
        files = {'r.py': '''
            import somewhere
            def list_opts():
                return [(None, somewhere.discover())]
            def list_more():
                return [(None, list(somewhere.discover()))]
        '''}
        _, got = listing(files, 'r.list_opts')
        self.assertIsInstance(got[0][1], pystatic.Unknown)
        self.assertIn('somewhere.discover', got[0][1].why)
        with self.assertRaises(pystatic.EvalError):
            listing(files, 'r.list_more')

    def test_shims_answer_plugin_machinery(self):
        shims = {'stevedore.ExtensionManager': lambda interp, a, k: ['x', 'y']}
        _, got = listing({'s.py': '''
            import stevedore
            from oslo_config import cfg
            def list_opts():
                return [(n, [cfg.StrOpt(n + '_opt')]) for n in stevedore.ExtensionManager('ns')]
        '''}, 's.list_opts', shims)
        self.assertEqual([('x', 'x_opt'), ('y', 'y_opt')], [(g, o[0].name) for g, o in got])


if __name__ == '__main__':
    unittest.main()
