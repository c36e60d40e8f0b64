"""Tests of paste_factories.py's reading of a paste file (python3 -m unittest)."""

import unittest

import paste_factories


class FactoriesTest(unittest.TestCase):
    def test_each_role_and_factory_once_sorted(self):
        text = '''[composite:main]
paste.composite_factory = pkg:root
/: api
/healthcheck: health

[pipeline:api]
pipeline = one two app

[app:health]
paste.app_factory = mw:Health.app_factory
backends = disable_by_file

[filter:one]
paste.filter_factory = mw:One.factory

[filter:two]
paste.filter_factory =  mw:One.factory
'''
        self.assertEqual(paste_factories.factories(text), [
            ['paste.app_factory', 'mw:Health.app_factory'],
            ['paste.composite_factory', 'pkg:root'],
            ['paste.filter_factory', 'mw:One.factory'],
        ])

    def test_the_same_factory_in_two_roles_is_two_pairs(self):
        text = '[filter:h]\npaste.filter_factory = mw:H.factory\n\n[app:h]\npaste.app_factory = mw:H.factory\n'
        self.assertEqual(paste_factories.factories(text), [
            ['paste.app_factory', 'mw:H.factory'],
            ['paste.filter_factory', 'mw:H.factory'],
        ])


if __name__ == '__main__':
    unittest.main()
