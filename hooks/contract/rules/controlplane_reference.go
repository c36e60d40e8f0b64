package rules

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/excerpt"
	"github.com/c5c3/glance-hooks/hooks/contract/inivalue"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/contract/problem"
)

// controlPlaneReferenceProblems checks what a ControlPlane holds in the
// reference's shape before it is projected: the knobs only a ControlPlane
// has, the fields it holds on its spec for its Glance (the region, the
// External Secrets store), and the projected fields these hooks do not build yet, each named
// where the ControlPlane sets it (the projection merges globalExtraConfig
// into the Glance's extraConfig, so the Glance's path would mislead).
func controlPlaneReferenceProblems(cp *api.ControlPlane) problem.List {
	svc := cp.Spec.Services.Glance
	l := referenceNameProblems(cp)
	if svc.Replicas != nil && *svc.Replicas < 1 {
		l = append(l, problem.Invalid(glanceServicePath.Child("replicas"), "must be at least 1"))
	}
	l = append(l, api.RegionProblems(specPath.Child("region"), cp.Spec.Region)...)
	l = append(l, problem.Wrap(specPath, api.SecretStoreRefProblems(cp.Spec.SecretStoreRef))...)
	l = append(l, misnamedEntryHosts(svc.Backends)...)
	if svc.Gateway != nil {
		l = append(l, gatewayHostnameProblems(svc.Gateway.Hostname)...)
	}
	if svc.PublicEndpoint != "" {
		problems := inivalue.URLProblems(svc.PublicEndpoint, "an endpoint URL carries none")
		for _, p := range problems {
			l = append(l, problem.At(glanceServicePath.Child("publicEndpoint"), "%s", p))
		}
		if len(problems) == 0 {
			l = append(l, publicEndpointProblems(svc)...)
		}
		if k := svc.Keystone; k != nil && k.PublicURL != "" && k.PublicURL != svc.PublicEndpoint {
			l = append(l, problem.Invalid(glanceServicePath.Child("publicEndpoint"), "and keystone.publicURL name different URLs: set one of them"))
		}
	}
	own := api.GlanceSpec{ExtraConfig: svc.ExtraConfig, ImageCache: svc.ImageCache,
		ImportFiltering: svc.ImportFiltering, ImportPlugins: svc.ImportPlugins, Database: svc.Database}
	l = append(l, problem.Wrap(glanceServicePath, notSupportedProblems(own))...)
	return l
}

// referenceNameProblems are those of the reference ControlPlane's own
// services.glance fields: one it names otherwise (replicas,
// databaseCredentialsMode) set under both names, the credentials mode's
// own rules, and the fields these hooks do not build
// (api.ControlPlaneLaterFields).
func referenceNameProblems(cp *api.ControlPlane) problem.List {
	svc := cp.Spec.Services.Glance
	var l problem.List
	if svc.Replicas != nil && svc.Deployment != nil && svc.Deployment.Replicas != nil {
		l = append(l, problem.Invalid(glanceServicePath.Child("replicas"), "and deployment.replicas are both set: set one of them"))
	}
	if svc.DatabaseCredentialsMode != "" && svc.Database != nil && svc.Database.CredentialsMode != "" {
		l = append(l, problem.Invalid(glanceServicePath.Child("databaseCredentialsMode"), "and database.credentialsMode are both set: set one of them"))
	}
	l = append(l, credentialsModeProblems(cp)...)
	for _, f := range api.ControlPlaneLaterFields {
		if f.IsSet(*svc) {
			l = append(l, notSupported(glanceServicePath.Child(f.Path), f.What))
		}
	}
	return l
}

// credentialsModeProblems are the reference's rules on
// services.glance.databaseCredentialsMode, in its words: Static or
// Dynamic, and Dynamic only on a managed database (clusterRef), the one
// services.glance.database or spec.infrastructure.database names, else the
// conventional cluster. They are the projected Glance's rules on its
// database.credentialsMode (api.CheckCredentialsMode), said where the mode
// is written (projectedAt leaves the Glance's out).
func credentialsModeProblems(cp *api.ControlPlane) problem.List {
	svc := cp.Spec.Services.Glance
	at := glanceServicePath.Child("databaseCredentialsMode")
	db := svc.Database
	if db == nil {
		db = cp.Spec.Infrastructure.SharedDatabase(names.GlanceName(cp.Name))
	}
	// No database at all is the conventional cluster, which is managed.
	switch api.CheckCredentialsMode(svc.DatabaseCredentialsMode, db == nil || db.ClusterRef != nil) {
	case api.CredentialsModeUnknown:
		return problem.List{problem.NotSupported(at, api.CredentialsStatic, api.CredentialsDynamic)}
	case api.CredentialsModeUnmanaged:
		return problem.List{problem.At(at, "credentialsMode Dynamic requires the shared database to be managed (clusterRef): "+
			"the dynamic engine issues per-tenant DB users only against a cluster the operator provisions, so it cannot "+
			"run against a brownfield database")}
	}
	return nil
}

// publicEndpointProblems are the reference's rules on a valid
// services.glance.publicEndpoint, in its words: an origin only, since
// clients append the API's path to the catalog's endpoint, and with a
// gateway an https URL of the gateway's host, the only one its listener
// routes to the Glance. Neither URL is repeated.
func publicEndpointProblems(svc *api.GlanceService) problem.List {
	at := glanceServicePath.Child("publicEndpoint")
	u, err := url.Parse(svc.PublicEndpoint)
	if err != nil {
		return nil // refused with the parser's reason already
	}
	var l problem.List
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		l = append(l, problem.At(at, "must be a bare origin (scheme://host[:port]) with no path, query, or fragment: the Glance API is served "+
			"at the root and clients append the API path to the catalog endpoint"))
	}
	g := svc.Gateway
	if g == nil || g.Hostname == "" {
		return l
	}
	if u.Scheme != "https" {
		l = append(l, problem.At(at, "scheme must be https when services.glance.gateway is configured (the Gateway listener terminates TLS): "+
			"every image call sends the caller's scoped Keystone token, and the image payload, to this endpoint"))
	}
	if u.Hostname() != g.Hostname {
		l = append(l, problem.At(at, "host must equal services.glance.gateway.hostname: the Gateway listener routes that "+
			"hostname to the Glance API, so the catalog would direct image clients to a host that never reaches it"))
	}
	return l
}

// maxHostname is the longest DNS name (RFC 1035).
const maxHostname = 253

// gatewayHostnameProblems refuses services.glance.gateway.hostname in the
// reference ControlPlane's words: set, a bare DNS host name (no port,
// path or user), at most 253 characters. Its words for a port and a
// wildcard speak of the dashboard's WebSSO origin, which a Glance gateway
// has nothing to do with: a port is not a bare DNS host name, and a
// wildcard is refused as a Glance's is. Every host name a Glance's gateway
// refuses is refused here first, so a ControlPlane is never answered in
// the Glance's words.
func gatewayHostnameProblems(h string) problem.List {
	at := glanceServicePath.Child("gateway", "hostname")
	u, err := url.Parse("https://" + h)
	switch {
	case h == "":
		return problem.List{problem.At(at, "must be set when a gateway is configured")}
	case strings.HasPrefix(h, "*."):
		return problem.List{problem.Invalid(at, api.WildcardHostname)}
	case err != nil || u.Host != h || u.Port() != "":
		return problem.List{problem.At(at, "must be a bare DNS hostname")}
	case len(h) > maxHostname:
		return problem.List{problem.At(at, "must be at most %d characters (the maximum DNS name length)", maxHostname)}
	case len(validation.IsDNS1123Subdomain(h)) > 0:
		return problem.List{problem.At(at, "must be a bare DNS hostname")}
	}
	return nil
}

// cleartextEndpointWarnings warn, in the reference's words, of a public
// image endpoint on plain http: valid (a development setup may have no
// TLS), but every authenticated image call would carry the caller's token
// in clear. The reference warns of publicEndpoint; keystone.publicURL is the
// same endpoint written where this project's Keystone block holds it. The
// URL itself is not repeated.
func cleartextEndpointWarnings(cp *api.ControlPlane) []string {
	svc := cp.Spec.Services.Glance
	if svc == nil {
		return nil
	}
	var out []string
	warn := func(at *field.Path, endpoint string) {
		if u, err := url.Parse(endpoint); err == nil && u.Scheme == "http" {
			out = append(out, fmt.Sprintf("%s uses http://: it is advertised as the public image catalog endpoint, "+
				"so every authenticated image call would deliver the caller's scoped Keystone token — and the image "+
				"payload — in cleartext. Use https://.", at))
		}
	}
	warn(glanceServicePath.Child("publicEndpoint"), svc.PublicEndpoint)
	if k := svc.Keystone; k != nil && k.PublicURL != svc.PublicEndpoint {
		warn(glanceServicePath.Child("keystone", "publicURL"), k.PublicURL)
	}
	return out
}

// misnamedEntryHosts refuses a backends entry that names its S3 address
// s3.host, as a GlanceBackend does, with the entry's name for it.
func misnamedEntryHosts(entries []api.BackendEntry) problem.List {
	var l problem.List
	for i, b := range entries {
		if b.S3 != nil && b.S3.Host != "" {
			l = append(l, problem.Invalid(glanceServicePath.Child("backends").Index(i).Child("s3", "host"), "%s", api.MisnamedS3Host))
		}
	}
	return l
}

// serviceKeyReview judges each key under spec.services of the raw
// ControlPlane (api.ServiceKey): a name the reference does not know is
// refused with the service it most likely means, as render and the CRD
// refuse it; a known service other than glance is accepted with a warning
// that these hooks leave it alone. The typed decode has no map of the
// keys, so they are read from the raw object.
func serviceKeyReview(raw []byte) (problem.List, []string) {
	var obj struct {
		Spec struct {
			Services map[string]json.RawMessage `json:"services"`
		} `json:"spec"`
	}
	if json.Unmarshal(raw, &obj) != nil {
		return nil, nil // the typed decode reports it
	}
	var l problem.List
	var warnings []string
	for _, name := range slices.Sorted(maps.Keys(obj.Spec.Services)) {
		// The key is the request's: shown escaped and cut, as any value.
		at := specPath.Child("services", excerpt.Bare(name))
		switch msg, refuse := api.ServiceKey(name); {
		case refuse:
			l = append(l, problem.Invalid(at, "%s", msg))
		case msg != "":
			warnings = append(warnings, fmt.Sprintf("%s %s", at, msg))
		}
	}
	return l, warnings
}
