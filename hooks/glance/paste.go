package glance

// PasteIni is glance-api's paste pipeline, rendered into the config
// ConfigMap because the image carries no config files. Only the keystone
// flavour exists ([paste_deploy] flavor = keystone): the healthcheck filter
// sits before authtoken, so GET /healthcheck answers 200 without a token and
// without touching the database or Keystone, which is what the probes need.
// The filters and apps are the ones Glance ships for this pipeline from Zed
// to 2026.x; glance 25.1 also parses this file as an oslo.config file
// (wsgi_app reads it from OS_GLANCE_CONFIG_DIR), which it can. The
// healthcheck has no disable_by_file backend: the liveness probe asks the
// same path, so a file that takes a pod out of rotation would restart it.
const PasteIni = `[pipeline:glance-api-keystone]
pipeline = cors healthcheck http_proxy_to_wsgi versionnegotiation osprofiler authtoken context rootapp

[composite:rootapp]
paste.composite_factory = glance.api:root_app_factory
/: apiversions
/v2: apiv2app

[app:apiversions]
paste.app_factory = glance.api.versions:create_resource

[app:apiv2app]
paste.app_factory = glance.api.v2.router:API.factory

[filter:healthcheck]
paste.filter_factory = oslo_middleware:Healthcheck.factory

[filter:versionnegotiation]
paste.filter_factory = glance.api.middleware.version_negotiation:VersionNegotiationFilter.factory

[filter:context]
paste.filter_factory = glance.api.middleware.context:ContextMiddleware.factory

[filter:authtoken]
paste.filter_factory = keystonemiddleware.auth_token:filter_factory
delay_auth_decision = true

[filter:osprofiler]
paste.filter_factory = osprofiler.web:WsgiMiddleware.factory

[filter:cors]
paste.filter_factory = oslo_middleware.cors:filter_factory
oslo_config_project = glance
oslo_config_program = glance-api

[filter:http_proxy_to_wsgi]
paste.filter_factory = oslo_middleware:HTTPProxyToWSGI.factory
`

// PasteFlavor selects [pipeline:glance-api-<flavor>] in PasteIni.
const PasteFlavor = "keystone"
