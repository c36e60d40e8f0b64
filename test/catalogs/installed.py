# What glance-api registers at runtime beyond its oslo-config-generator
# namespaces, read from the installed packages: the keystoneauth plugin the
# hooks configure in [keystone_authtoken], and the options glance_store adds
# to every store section. Printed as JSON for debian_test.go.
import json
import sys

import glance_store.driver
from keystoneauth1 import loading


def describe(opts):
    return [{'name': o.dest,
             'deprecated': [{'group': d.group, 'name': d.name} for d in o.deprecated_opts],
             'removal': bool(o.deprecated_for_removal)} for o in opts]


json.dump({'plugin': describe(loading.get_auth_plugin_conf_options(sys.argv[1])),
           'multiBackend': describe(glance_store.driver.Store.MULTI_BACKEND_OPTIONS)},
          sys.stdout)
