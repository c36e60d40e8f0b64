#!/usr/bin/env bash
# Installs the Debian packages of the servers test/services starts (MariaDB,
# memcached, Keystone served by uWSGI and its Python 3 plugin) and the
# clients tests use (PyMySQL, the openstack and glance CLIs). Idempotent:
# does nothing when all are installed. Needs root (or sudo) and apt-get.
# About a minute on a fresh Debian 12 machine (see docs/testing.md).
# No daemon is left running: tests start their own on loopback.
set -euo pipefail
exec "$(dirname "$0")/apt-install.sh" --stop mariadb --stop memcached --stop keystone --stop uwsgi \
  mariadb-server mariadb-client memcached keystone python3-openstackclient python3-pymysql \
  uwsgi uwsgi-plugin-python3 python3-glanceclient
