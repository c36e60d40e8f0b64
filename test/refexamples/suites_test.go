package refexamples

// The reference's suites (C5C3/cobaltcore, tests/e2e/glance/<suite>/,
// tests/e2e-chaos/<suite>/, tests/tempest/<suite>/ with the CI job that
// waits for the tempest Glance), as the facts they wait for: conditions
// (type, status, reason), status fields and the children's fields the
// in-process walk holds. Each step names the suite's step it comes from.
// What only a cluster answers (HTTP requests to glance-api, pods, Jobs
// run, Events, other operators' objects) is listed with skipped, so the
// count of what is left out stays honest.

import "github.com/c5c3/glance-hooks/hooks/contract/api"

// Where this project documents a difference from the reference.
const (
	childrenDiffer = "docs/hooks.md, Differences from the reference"
	launchModes    = "docs/hooks.md, Launch modes"
	purgeSteps     = "docs/hooks.md, Differences from the reference (the purge's steps)"
)

// Why a check is left to a cluster.
const (
	byHTTP      = "an HTTP request to a running glance-api"
	byPods      = "pods, a Job or the CronJob controller running"
	byOthers    = "objects of other operators (mariadb-operator, External Secrets, Chaos Mesh, Pod Security)"
	byNoProject = "a finalizer the reference adds for its mariadb-operator objects; " + childrenDiffer + " (database.clusterRef)"
)

// readyAll is the Ready the suites wait for.
func readyAll(kind, name string) check { return cond(kind, name, "Ready", "True/AllReady") }

// databaseSynced and deploymentReady are DatabaseReady and DeploymentReady
// as the suites wait for them once the schema is synced and the pods run.
func databaseSynced(g string) check { return glanceCond(g, "DatabaseReady", "True/DatabaseSynced") }

func deploymentReady(g string) check { return glanceCond(g, "DeploymentReady", "True/DeploymentReady") }

// everyCondition is the basic-deployment suites' step 2: the nine
// sub-conditions and Ready, each with its reason.
func everyCondition(g string) []check {
	return []check{
		glanceCond(g, "SecretsReady", "True/SecretsAvailable"),
		glanceCond(g, "BackendsReady", "True/AllBackendsProjected"),
		databaseSynced(g),
		deploymentReady(g),
		glanceCond(g, "GlanceAPIReady", "True/APIHealthy"),
		glanceCond(g, "HPAReady", "True/HPANotRequired"),
		glanceCond(g, "NetworkPolicyReady", "True/NetworkPolicyNotRequired"),
		glanceCond(g, "HTTPRouteReady", "True/HTTPRouteNotRequired"),
		glanceCond(g, "DBPurgeReady", "True/DBPurgeScheduled"),
		readyAll(api.KindGlance, g),
	}
}

// tmpl is a path in a pod template's spec.
func tmpl(path ...string) []string { return append([]string{"spec", "template", "spec"}, path...) }

// purgePod is a path in the purge CronJob's pod spec.
func purgePod(path ...string) []string {
	return append([]string{"spec", "jobTemplate", "spec", "template", "spec"}, path...)
}

// scratch is a scratch emptyDir's bound: staging, and tasks-work (tasks here).
func scratch(g, size string) []check {
	return []check{
		podSpec(g, size, "volumes", "[name=staging]", "emptyDir", "sizeLimit"),
		podSpec(g, size, "volumes", "[name=tasks-work]", "emptyDir", "sizeLimit").
			differsAt(size, childrenDiffer+" (glance-api's volumes)", tmpl("volumes", "[name=tasks]", "emptyDir", "sizeLimit")...),
	}
}

// servicePDB is the basic-deployment suites' Service and PodDisruptionBudget.
func servicePDB(g string) []check {
	return []check{
		field("Service", g, "9292", "spec", "ports", "[0]", "port"),
		field("PodDisruptionBudget", g, "glance", "metadata", "labels", "app.kubernetes.io/name"),
		field("PodDisruptionBudget", g, g, "metadata", "labels", "app.kubernetes.io/instance"),
		field("PodDisruptionBudget", g, "glance-operator", "metadata", "labels", "app.kubernetes.io/managed-by").
			differs("glance-hooks", childrenDiffer+" (label managed-by)"),
		field("PodDisruptionBudget", g, "1", "spec", "minAvailable"),
		field("PodDisruptionBudget", g, "glance", "spec", "selector", "matchLabels", "app.kubernetes.io/name"),
		field("PodDisruptionBudget", g, g, "spec", "selector", "matchLabels", "app.kubernetes.io/instance"),
	}
}

// backendReady is the basic-deployment suites' step 4.
func backendReady(b string) []check {
	return []check{
		backendCond(b, "CredentialsReady", "True/CredentialsAvailable"),
		backendCond(b, "ConfigProjected", "True/ConfigProjected"),
		readyAll(api.KindGlanceBackend, b),
	}
}

// purgeCronJob is the purge CronJob's schedule and settings.
func purgeCronJob(g, schedule string) []check {
	c := g + "-db-purge"
	return []check{
		field("CronJob", c, schedule, "spec", "schedule"),
		field("CronJob", c, "Forbid", "spec", "concurrencyPolicy"),
		field("CronJob", c, "false", "spec", "suspend"),
		field("CronJob", c, "3600", "spec", "jobTemplate", "spec", "activeDeadlineSeconds"),
	}
}

// purgeFlag is a flag of the purge container's command. The reference
// runs one container db-purge whose command is a shell script; here each
// glance-manage step is a container of its own (all but the last init
// containers), its flags in args.
func purgeFlag(g, container, flag, hereFlag string) check {
	return field("CronJob", g+"-db-purge", "~"+flag, purgePod("containers", "[name=db-purge]", "command")...).
		differsAt("~"+hereFlag, purgeSteps, purgePod("containers", "[name="+container+"]", "args")...)
}

// basicSuite is the frame both basic-deployment suites share: what differs
// is the Deployment's step 3, the config greps of step 5 and the purge of
// step 7.
func basicSuite(release, g string, deploy, conf, purge []check) suite {
	named := []check{namedLike("ConfigMap", g+"-config-", "present"), namedLike("Secret", g+"-backends-", "present")}
	return suite{set: "e2e/e2e_glance_basic-deployment" + release, from: "tests/e2e/glance/basic-deployment" + release, steps: []step{
		{from: "step 2 (conditions)", checks: everyCondition(g)},
		{from: "step 3 (Deployment, Service, PDB)", checks: append(append(deploy,
			field("Deployment", g, ">0", "status", "availableReplicas")), servicePDB(g)...)},
		{from: "step 4 (backend)", checks: backendReady(g + "-s3")},
		{from: "step 5 (config ConfigMap and backends Secret)", checks: append(named, conf...)},
		{from: "step 6 (healthcheck)", checks: []check{cluster("GET /healthcheck answers 200", byHTTP)}},
		{from: "step 7 (db-purge)", checks: purge},
	}}
}

func basicDeployment() suite {
	const g = "glance-basic"
	conf := func(pattern string) check { return confLine(g, "config", "glance-api.conf", pattern, "present") }
	return basicSuite("", g,
		append([]check{
			podSpec(g, "glance-api --config-dir ...", "containers", "[name=glance-api]", "command").skipped(launchModes),
			podSpec(g, "1", "containers", "#"),
			podSpec(g, none, "volumes", "[name=image-cache]"),
		}, scratch(g, "10Gi")...),
		[]check{
			conf(`^allowed_schemes = \[https\]$`),
			conf(`^allowed_ports = \[443\]$`),
			conf(`^disallowed_hosts = \[.*169\.254\.169\.254`),
			conf(`^image_import_plugins = \[\]$`),
		},
		append(purgeCronJob(g, "1 0 * * *"),
			purgeFlag(g, "db-purge", "--age_in_days 30", `"--age_in_days","30"`),
			purgeFlag(g, "db-purge", "--max_rows 1000", `"--max_rows","1000"`),
			field("CronJob", g+"-db-purge", none, purgePod("containers", "[name=db-purge-images-table]")...),
			cluster("a Job made from the CronJob completes", byPods)))
}

func basicDeployment2026() suite {
	const g = "glance-basic-2026"
	return basicSuite("-2026-1", g,
		append([]check{
			podSpec(g, "uwsgi --http :9292 ... --wsgi-file ...", "containers", "[name=glance-api]", "command").skipped(launchModes),
		}, scratch(g, "20Gi")...),
		nil,
		append(purgeCronJob(g, "*/1 * * * *"),
			purgeFlag(g, "db-purge-images-table", "--age_in_days 7", `"--age_in_days","7"`),
			purgeFlag(g, "db-purge-images-table", "--max_rows 1000", `"--max_rows","1000"`),
			purgeFlag(g, "db-purge-images-table", "purge_images_table", `"purge_images_table"`),
			cluster("the CronJob fires and the operator stamps the run's Job uid", byPods),
			glanceCond(g, "DBPurgeReady", "True/DBPurgeScheduled"),
			readyAll(api.KindGlance, g)))
}

// defaultBackendSwitch: the suite compares the mounted config and backends
// names before and after each switch.
func defaultBackendSwitch() suite {
	const g = "glance-backend-switch"
	cm := []string{"spec", "template", "spec", "volumes", "[name=config]", "configMap", "name"}
	sec := []string{"spec", "template", "spec", "volumes", "[name=backends]", "secret", "secretName"}
	return suite{set: "e2e/e2e_glance_default-backend-switch", from: "tests/e2e/glance/default-backend-switch", steps: []step{
		{from: "step 2 (Ready)", checks: []check{
			glanceCond(g, "BackendsReady", "True/AllBackendsProjected"),
			readyAll(api.KindGlance, g),
			field("Deployment", g, "1", "spec", "replicas"),
			field("Deployment", g, "1", "status", "availableReplicas"),
			field("Deployment", g, "1", "status", "updatedReplicas"),
		}},
		{from: "step 3 (switch-a is the default)", checks: []check{
			field("Deployment", g, "~"+g+"-config-", cm...).noted("config"),
			field("Deployment", g, "~"+g+"-backends-", sec...).noted("backends"),
			confLine(g, "config", "glance-api.conf", `default_backend = switch-a`, "present"),
		}},
		{from: "step 4 (switch-a isDefault: false)", change: patch(api.KindGlanceBackend, "switch-a", `{"spec":{"isDefault":false}}`), checks: []check{
			glanceCond(g, "BackendsReady", "False/NoDefaultBackend"),
			field("Deployment", g, "=config", cm...),
			field("Deployment", g, "=backends", sec...),
			confLine(g, "config", "glance-api.conf", `default_backend = switch-a`, "present"),
		}},
		{from: "step 5 (switch-b isDefault: true)", change: patch(api.KindGlanceBackend, "switch-b", `{"spec":{"isDefault":true}}`), checks: []check{
			glanceCond(g, "BackendsReady", "True/AllBackendsProjected"),
			readyAll(api.KindGlance, g),
			field("Deployment", g, "1", "spec", "replicas"),
			field("Deployment", g, "1", "status", "availableReplicas"),
			field("Deployment", g, "1", "status", "updatedReplicas"),
			field("Deployment", g, "!=config", cm...),
			field("Deployment", g, "=backends", sec...),
			confLine(g, "config", "glance-api.conf", `default_backend = switch-b`, "present"),
		}},
	}}
}

func deletionCleanup() suite {
	const g = "glance-deletion"
	return suite{set: "e2e/e2e_glance_deletion-cleanup", from: "tests/e2e/glance/deletion-cleanup", steps: []step{
		{from: "step 2 (Ready)", checks: []check{
			field(api.KindGlance, g, "~glance.openstack.c5c3.io/finalizer", "metadata", "finalizers").skipped(byNoProject),
			glanceCond(g, "BackendsReady", "True/AllBackendsProjected"),
			readyAll(api.KindGlance, g),
			readyAll(api.KindGlanceBackend, "deletion-a"),
			readyAll(api.KindGlanceBackend, "deletion-b"),
		}},
		{from: "step 3 (delete deletion-b)", change: remove(api.KindGlanceBackend, "deletion-b"), checks: []check{
			confLine(g, "backends", "backends.conf", `\[deletion-a\]`, "present"),
			// The retired store's section stays, readable, until
			// spec.dropRetiredStores names it.
			confLine(g, "backends", "backends.conf", `\[deletion-b\]`, "absent").
				differs("present", childrenDiffer+" (a store whose backend is gone)"),
		}},
		{from: "step 5 (delete the Glance: its children go)", change: remove(api.KindGlance, g), checks: []check{
			gone("Deployment", g), gone("Service", g), gone("PodDisruptionBudget", g),
			namedLike("Job", g+"-db-", "absent"), gone("CronJob", g+"-db-purge"),
			cluster("mariadb-operator Database, User and Grant are deleted", byOthers),
		}},
		{from: "step 6 (config and backends gone)", checks: []check{
			namedLike("ConfigMap", g+"-config-", "absent"),
			namedLike("Secret", g+"-backends-", "absent"),
		}},
		{from: "step 7 (the orphaned backend)", checks: []check{
			backendCond("deletion-a", "ConfigProjected", "False/WaitingForProjection"),
			backendCond("deletion-a", "Ready", "False/NotAllReady"),
		}},
	}}
}

func healthcheck() suite {
	const g = "glance-healthcheck"
	return suite{set: "e2e/e2e_glance_healthcheck", from: "tests/e2e/glance/healthcheck", steps: []step{
		{from: "step 2", checks: []check{
			field(api.KindGlance, g, "http://glance-healthcheck.openstack.svc.cluster.local:9292/", "status", "endpoint"),
			glanceCond(g, "DeploymentReady", "True"),
			glanceCond(g, "GlanceAPIReady", "True/APIHealthy"),
			readyAll(api.KindGlance, g),
		}},
	}}
}

func httpRoute() suite {
	const g = "glance-httproute"
	return suite{set: "e2e/e2e_glance_httproute", from: "tests/e2e/glance/httproute", steps: []step{
		{from: "step 3 (the HTTPRoute)", checks: []check{
			field("HTTPRoute", g, "glance", "metadata", "labels", "app.kubernetes.io/name"),
			field("HTTPRoute", g, g, "metadata", "labels", "app.kubernetes.io/instance"),
			field("HTTPRoute", g, "glance-operator", "metadata", "labels", "app.kubernetes.io/managed-by").
				differs("glance-hooks", childrenDiffer+" (label managed-by)"),
			field("HTTPRoute", g, `[{"name":"not-a-real-gateway"}]`, "spec", "parentRefs"),
			field("HTTPRoute", g, `["glance.e2e.example.com"]`, "spec", "hostnames"),
			field("HTTPRoute", g, `[{"path":{"type":"PathPrefix","value":"/"}}]`, "spec", "rules", "[0]", "matches"),
			field("HTTPRoute", g, `[{"name":"glance-httproute","port":9292}]`, "spec", "rules", "[0]", "backendRefs"),
			field("HTTPRoute", g, "4h", "spec", "rules", "[0]", "timeouts", "request"),
		}},
		{from: "step 4 (not accepted yet)", checks: []check{
			field(api.KindGlance, g, "https://glance.e2e.example.com/", "status", "endpoint"),
			glanceCond(g, "HTTPRouteReady", "False/HTTPRouteNotAccepted"),
		}},
		{from: "step 5-6 (a Gateway controller accepts it)", change: acceptRoute(g), checks: []check{
			glanceCond(g, "HTTPRouteReady", "True/HTTPRouteAccepted"),
		}},
		{from: "step 7-8 (gateway: null)", change: patch(api.KindGlance, g, `{"spec":{"gateway":null}}`), checks: []check{
			glanceCond(g, "HTTPRouteReady", "True/HTTPRouteNotRequired"),
			gone("HTTPRoute", g),
		}},
	}}
}

// gatewaySuite is a suite that applies its CRs once the cluster's Gateway
// is Programmed and waits for Ready, which needs the route accepted.
func gatewaySuite(set, from, g string) suite {
	return suite{set: set, from: from, steps: []step{
		{from: "step 2 (kubectl wait Ready, once a Gateway controller accepts the route)", change: acceptRoute(g), checks: []check{
			glanceCond(g, "Ready", "True"),
			cluster("the Gateway answers GET /healthcheck and image uploads", byHTTP),
		}},
	}}
}

func gatewayLargeUpload() suite {
	const g = "glance-upload"
	s := gatewaySuite("e2e/e2e_glance_gateway-large-upload", "tests/e2e/glance/gateway-large-upload", g)
	s.steps = append(s.steps, step{from: "step 5 (staging.sizeLimit: 64Mi)",
		change: patch(api.KindGlance, g, `{"spec":{"staging":{"sizeLimit":"64Mi"}}}`), checks: []check{
			podSpec(g, "64Mi", "volumes", "[name=staging]", "emptyDir", "sizeLimit"),
			cluster("the kubelet evicts the pod past the bound", byPods),
		}})
	return s
}

func imageCache() suite {
	const g = "glance-cache"
	return suite{set: "e2e/e2e_glance_image-cache", from: "tests/e2e/glance/image-cache", steps: []step{
		{from: "step 1", checks: []check{
			readyAll(api.KindGlance, g),
			readyAll(api.KindGlanceBackend, g+"-s3"),
			podSpec(g, "256Mi", "volumes", "[name=image-cache]", "emptyDir", "sizeLimit"),
			podSpec(g, "2", "containers", "#"),
			podSpec(g, "cache-maintenance", "containers", "[name=cache-maintenance]", "name"),
			field("Deployment", g, ">0", "status", "availableReplicas"),
		}},
		{from: "steps 2-3 (cache hits and pruning)", checks: []check{cluster("images cached, hit and pruned", byHTTP)}},
		{from: "step 4 (imageCache: null)", change: patch(api.KindGlance, g, `{"spec":{"imageCache":null}}`), checks: []check{
			podSpec(g, "1", "containers", "#"),
			podSpec(g, none, "containers", "[name=cache-maintenance]"),
			podSpec(g, none, "volumes", "[name=image-cache]"),
			field("Deployment", g, ">0", "status", "availableReplicas"),
			readyAll(api.KindGlance, g),
		}},
	}}
}

func importPlugins() suite {
	const g = "glance-import-plugins"
	conf := func(pattern, want string) check { return confLine(g, "config", "glance-api.conf", pattern, want) }
	return suite{set: "e2e/e2e_glance_import-plugins", from: "tests/e2e/glance/import-plugins", steps: []step{
		{from: "step 1", checks: []check{
			readyAll(api.KindGlance, g),
			readyAll(api.KindGlanceBackend, g+"-s3"),
			field("Deployment", g, ">0", "status", "availableReplicas"),
		}},
		{from: "step 2 (glance-api.conf)", checks: []check{
			conf(`^image_import_plugins = \[image_decompression,image_conversion,inject_image_metadata\]$`, "present"),
			conf(`^output_format = qcow2$`, "present"),
			conf(`^inject = cost-center:images,tier:gold$`, "present"),
			conf(`^ignore_user_roles = admin,service$`, "present"),
		}},
		{from: "step 3 (the image's tools)", checks: []check{cluster("qemu-img and lhafile in the image", byPods)}},
		{from: "step 4 (importPlugins: null)", change: patch(api.KindGlance, g, `{"spec":{"importPlugins":null}}`), checks: []check{
			conf(`^image_import_plugins = \[\]$`, "present"),
			conf(`^\[image_conversion\]$`, "absent"),
			conf(`^\[inject_metadata_properties\]$`, "absent"),
			field("Deployment", g, ">0", "status", "availableReplicas"),
			readyAll(api.KindGlance, g),
		}},
	}}
}

// egressPort: some egress rule of the policy allows the port. The suite
// lists the reference's four rules (DNS, database, cache, S3) without a
// destination; here each rule names its destination and Keystone has one
// too (docs/reach.md, the rule by the shape of its host), so the ports
// are what compares.
func egressPort(g, port, protocol string) check {
	return field("NetworkPolicy", g, `~{"port":`+port+`,"protocol":"`+protocol+`"}`, "spec", "egress")
}

func networkPolicy() suite {
	const g = "glance-netpol"
	return suite{set: "e2e/e2e_glance_network-policy", from: "tests/e2e/glance/network-policy", steps: []step{
		{from: "step 2", checks: []check{
			glanceCond(g, "NetworkPolicyReady", "True/NetworkPolicyReady"),
			field("NetworkPolicy", g, "glance", "spec", "podSelector", "matchLabels", "app.kubernetes.io/name"),
			field("NetworkPolicy", g, g, "spec", "podSelector", "matchLabels", "app.kubernetes.io/instance"),
			field("NetworkPolicy", g, `["Ingress","Egress"]`, "spec", "policyTypes"),
			field("NetworkPolicy", g, `[{"port":9292,"protocol":"TCP"}]`, "spec", "ingress", "[0]", "ports"),
			egressPort(g, "53", "UDP"), egressPort(g, "53", "TCP"), egressPort(g, "3306", "TCP"),
			egressPort(g, "11211", "TCP"), egressPort(g, "3900", "TCP"),
		}},
		{from: "step 3 (a second ingress source)", change: patch(api.KindGlance, g, `{"spec":{"networkPolicy":{"ingress":[
			{"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"openstack"}}},
			{"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"monitoring"}}}]}}}`), checks: []check{
			field("NetworkPolicy", g, "2", "spec", "ingress", "[0]", "from", "#"),
		}},
		{from: "step 4 (networkPolicy: null)", change: patch(api.KindGlance, g, `{"spec":{"networkPolicy":null}}`), checks: []check{
			glanceCond(g, "NetworkPolicyReady", "True/NetworkPolicyNotRequired"),
			gone("NetworkPolicy", g),
		}},
	}}
}

func podSecurityRestricted() suite {
	const g = "glance-pss"
	return suite{set: "e2e/e2e_glance_pod-security-restricted", from: "tests/e2e/glance/pod-security-restricted", steps: []step{
		{from: "steps 1-2 (namespace, External Secrets, brownfield database)", checks: []check{cluster("the namespace, ExternalSecrets and database objects", byOthers)}},
		{from: "step 3", checks: []check{
			readyAll(api.KindGlance, g),
			cluster("no mariadb-operator Database, User or Grant for a brownfield database", byOthers),
		}},
		{from: "step 4", checks: []check{cluster("no FailedCreate Event for PodSecurity restricted", byPods)}},
	}}
}

func releaseUpgrade() suite {
	const g = "glance-release-upgrade"
	return suite{set: "e2e/e2e_glance_release-upgrade", from: "tests/e2e/glance/release-upgrade", steps: []step{
		{from: "step 2 (2025.2)", checks: []check{
			field(api.KindGlance, g, "2025.2", "status", "installedRelease"),
			readyAll(api.KindGlance, g),
			podSpec(g, "glance-api --config-dir ...", "containers", "[name=glance-api]", "command").skipped(launchModes),
			field("Deployment", g, ">0", "status", "availableReplicas"),
		}},
		{from: "steps 3-4 (openStackRelease 2026.1)", change: patch(api.KindGlance, g, `{"spec":{"openStackRelease":"2026.1","image":{"tag":"2026.1"}}}`), checks: []check{
			field(api.KindGlance, g, "2026.1", "status", "installedRelease"),
			readyAll(api.KindGlance, g),
			field(api.KindGlance, g, none, "status", "upgradePhase"),
			cluster("Jobs <glance>-db-expand, -db-migrate, -db-contract, -db-sync on :2026.1 succeeded", byPods+"; "+childrenDiffer+" (schema Jobs are named <glance>-db-<action>-<hash>)"),
			podSpec(g, "ghcr.io/c5c3/glance:2026.1", "containers", "[name=glance-api]", "image"),
			podSpec(g, "uwsgi --http :9292 ...", "containers", "[name=glance-api]", "command").skipped(launchModes),
			field("Deployment", g, ">0", "status", "availableReplicas"),
		}},
	}}
}

func s3Multistore() suite {
	const g = "glance-multistore"
	return suite{set: "e2e/e2e_glance_s3-multistore", from: "tests/e2e/glance/s3-multistore", steps: []step{
		{from: "step 2", checks: []check{
			glanceCond(g, "BackendsReady", "True/AllBackendsProjected"),
			readyAll(api.KindGlance, g),
			readyAll(api.KindGlanceBackend, "garage-a"),
			readyAll(api.KindGlanceBackend, "garage-b"),
		}},
		{from: "steps 3-4", checks: []check{cluster("GET /v2/info/stores, an upload to garage-b, the bucket's listing", byHTTP)}},
	}}
}

// scaleSuite: replicas and the PodDisruptionBudget as they follow them.
func scaleSuite() suite {
	const g = "glance-scale"
	replicas := func(n string) []check {
		return []check{
			field("Deployment", g, n, "spec", "replicas"),
			field("Deployment", g, n, "status", "availableReplicas"),
		}
	}
	return suite{set: "e2e/e2e_glance_scale", from: "tests/e2e/glance/scale", steps: []step{
		{from: "step 2 (3 replicas)", checks: append(replicas("3"),
			readyAll(api.KindGlance, g),
			field("PodDisruptionBudget", g, "1", "spec", "minAvailable"))},
		{from: "step 3 (5 replicas)", change: patch(api.KindGlance, g, `{"spec":{"deployment":{"replicas":5}}}`),
			checks: append(replicas("5"), field("Deployment", g, "5", "status", "updatedReplicas"))},
		{from: "step 4 (1 replica)", change: patch(api.KindGlance, g, `{"spec":{"deployment":{"replicas":1}}}`),
			checks: append(replicas("1"), field("Deployment", g, "1", "status", "updatedReplicas"),
				field("PodDisruptionBudget", g, "1", "spec", "maxUnavailable"))},
	}}
}

func garageOutage() suite {
	const g = "glance-garage-chaos"
	return suite{set: "e2e/e2e-chaos_glance-garage-outage", from: "tests/e2e-chaos/glance-garage-outage", steps: []step{
		{from: "step 1", checks: []check{
			glanceCond(g, "BackendsReady", "True/AllBackendsProjected"),
			readyAll(api.KindGlance, g),
		}},
		{from: "steps 2-8 (S3 partitioned: writes fail closed, Ready stays)", checks: []check{cluster("a NetworkChaos partition and image writes", byOthers)}},
	}}
}

func operatorPodKill() suite {
	const g = "glance-chaos-op"
	return suite{set: "e2e/e2e-chaos_glance-operator-pod-kill", from: "tests/e2e-chaos/glance-operator-pod-kill", steps: []step{
		{from: "step 1", checks: []check{readyAll(api.KindGlance, g)}},
		{from: "steps 2-3 (the operator's pod killed)", checks: []check{cluster("a PodChaos on the operator; workload pods untouched", byOthers)}},
		{from: "step 4 (2 replicas)", change: patch(api.KindGlance, g, `{"spec":{"deployment":{"replicas":2}}}`), checks: []check{
			field("Deployment", g, "2", "spec", "replicas"),
			field("Deployment", g, "2", "status", "availableReplicas"),
			field("Deployment", g, "2", "status", "updatedReplicas"),
			readyAll(api.KindGlance, g),
		}},
	}}
}

// fullControlPlane is the ControlPlane suite's Glance link: the Glance and
// GlanceBackend it projects from spec.infrastructure and services.glance.
func fullControlPlane() suite {
	const cp, g = "controlplane-keystone", "controlplane-keystone-glance"
	const keystoneLink = childrenDiffer + " (a reference ControlPlane's Keystone link)"
	glanceSpec := func(want string, path ...string) check {
		return field(api.KindGlance, g, want, append([]string{"spec"}, path...)...)
	}
	backend := func(want string, path ...string) check {
		return field(api.KindGlanceBackend, g+"-default", want, path...)
	}
	return suite{set: "e2e/e2e_c5c3_full-controlplane-keystone", from: "tests/e2e/c5c3/full-controlplane-keystone", steps: []step{
		{from: "link 5c (the Glance child)", checks: []check{
			cond(api.KindControlPlane, cp, "GlanceReady", "True/GlanceReady"),
			glanceSpec("2025.2", "image", "tag"),
			glanceSpec("openstack-db", "database", "clusterRef", "name"),
			glanceSpec("glance", "database", "database"),
			glanceSpec(g+"-db-credentials", "database", "secretRef", "name"),
			glanceSpec("Dynamic", "database", "credentialsMode"),
			cluster("the ExternalSecret and VaultDynamicSecret that issue the Glance's database user", byOthers),
			glanceSpec("openstack-memcached", "cache", "clusterRef", "name"),
			glanceSpec("http://"+cp+"-keystone.openstack.svc:5000/v3", "keystoneEndpoint").
				differs("http://keystone.openstack.svc.cluster.local:5000/v3", keystoneLink),
			glanceSpec("glance", "serviceUser", "username"),
			glanceSpec("service-glance", "serviceUser", "projectName").differs("service", keystoneLink),
			glanceSpec(g+"-credentials", "serviceUser", "secretRef", "name").differs("glance-service-user", keystoneLink),
			field(api.KindGlance, g, cp, "metadata", "ownerReferences", "[0]", "name"),
			backend(g, "spec", "glanceRef", "name"),
			backend("true", "spec", "isDefault"),
			backend("http://garage.shared-services.svc.cluster.local:3900", "spec", "s3", "host"),
			backend(cp, "metadata", "ownerReferences", "[0]", "name"),
		}},
		{from: "link 5d (the image catalog)", checks: []check{cluster("K-ORC's catalog Service and Endpoints in a running Keystone", byOthers)}},
		{from: "link 6 (status.services: keystone [0], horizon [1], glance [2], ...)", checks: []check{
			field(api.KindControlPlane, cp, "glance", "status", "services", "[2]", "name").
				differsAt("glance", childrenDiffer+" (a ControlPlane's status.services)", "status", "services", "[0]", "name"),
			field(api.KindControlPlane, cp, "true", "status", "services", "[2]", "ready").
				differsAt("true", childrenDiffer+" (a ControlPlane's status.services)", "status", "services", "[0]", "ready"),
		}},
	}}
}

// tempest: the CI job applies the CRs and waits for the Glance's Ready
// (kubectl wait --for=condition=Ready) before Tempest runs.
func tempest(release, g string) suite {
	return suite{set: "e2e/tempest_glance-" + release, from: "tests/tempest/glance-" + release, steps: []step{
		{from: "kubectl wait --for=condition=Ready", checks: []check{
			glanceCond(g, "Ready", "True"),
			cluster("Tempest's image API tests", byHTTP),
		}},
	}}
}

// suiteAssertions are the suites whose CRs are under e2e/.
func suiteAssertions() []suite {
	return []suite{
		basicDeployment(), basicDeployment2026(), defaultBackendSwitch(), deletionCleanup(), healthcheck(),
		httpRoute(),
		gatewaySuite("e2e/e2e_glance_gateway-quick-start-smoke", "tests/e2e/glance/gateway-quick-start-smoke", "glance-smoke"),
		gatewayLargeUpload(), imageCache(), importPlugins(), networkPolicy(), podSecurityRestricted(),
		releaseUpgrade(), s3Multistore(), scaleSuite(), garageOutage(), operatorPodKill(),
		tempest("2025-2", "glance-tempest-2025-2"), tempest("2026-1", "glance-tempest-2026-1"),
		fullControlPlane(),
	}
}
