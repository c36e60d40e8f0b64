package schemas_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/storeconf"
	"github.com/c5c3/glance-hooks/schemas"
)

// node is a piece of an OpenAPI v3 schema as the CRD files spell it.
type node = map[string]any

type kind struct {
	file, apiVersion, kind, plural string
	goType                         reflect.Type
	// columns are the printer columns `kubectl get` shows by default.
	columns []string
}

var kinds = []kind{
	{schemas.ControlPlaneFile, api.ControlPlaneAPIVersion, api.KindControlPlane, "controlplanes",
		reflect.TypeFor[api.ControlPlane](), []string{"Ready", "Release", "Age"}},
	// The reference's `kubectl get glance`: NAME READY RELEASE ENDPOINT AGE,
	// then this project's columns.
	{schemas.GlanceFile, api.GlanceAPIVersion, api.KindGlance, "glances",
		reflect.TypeFor[api.Glance](), []string{"Ready", "Release", "Endpoint", "Age", "Default", "Status"}},
	// The guide's `kubectl get glancebackends`: NAME READY TYPE DEFAULT GLANCE AGE.
	{schemas.GlanceBackendFile, api.GlanceAPIVersion, api.KindGlanceBackend, "glancebackends",
		reflect.TypeFor[api.GlanceBackend](), []string{"Ready", "Type", "Default", "Glance", "Age"}},
}

func loadCRD(t *testing.T, file string) node {
	t.Helper()
	raw, err := schemas.Read(file)
	require.NoError(t, err)
	js, err := utilyaml.ToJSON(raw)
	require.NoError(t, err)
	var crd node
	require.NoError(t, json.Unmarshal(js, &crd))
	return crd
}

func get(n node, path ...string) any {
	var cur any = n
	for _, p := range path {
		m, ok := cur.(node)
		if !ok {
			return nil
		}
		cur = m[p]
	}
	return cur
}

func version(t *testing.T, crd node) node {
	t.Helper()
	versions, _ := get(crd, "spec", "versions").([]any)
	require.Len(t, versions, 1, "one served version")
	return versions[0].(node)
}

func TestEveryFileIsAKnownKind(t *testing.T) {
	var want []string
	for _, k := range kinds {
		want = append(want, k.file)
	}
	sort.Strings(want)
	assert.Equal(t, want, schemas.Names())
}

func TestCRDIdentity(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.kind, func(t *testing.T) {
			crd := loadCRD(t, k.file)
			group, ver, _ := strings.Cut(k.apiVersion, "/")
			assert.Equal(t, "apiextensions.k8s.io/v1", crd["apiVersion"])
			assert.Equal(t, "CustomResourceDefinition", crd["kind"])
			assert.Equal(t, k.plural+"."+group, get(crd, "metadata", "name"))
			assert.Equal(t, group, get(crd, "spec", "group"))
			assert.Equal(t, "Namespaced", get(crd, "spec", "scope"))
			assert.Equal(t, k.kind, get(crd, "spec", "names", "kind"))
			assert.Equal(t, k.kind+"List", get(crd, "spec", "names", "listKind"))
			assert.Equal(t, k.plural, get(crd, "spec", "names", "plural"))
			assert.Equal(t, strings.ToLower(k.kind), get(crd, "spec", "names", "singular"))
			v := version(t, crd)
			assert.Equal(t, ver, v["name"])
			assert.Equal(t, true, v["served"])
			assert.Equal(t, true, v["storage"])
			assert.Equal(t, node{}, get(v, "subresources", "status"), "status subresource")
		})
	}
}

// TestSchemaMatchesGoTypes walks each Go type's JSON fields and the CRD's
// schema together and fails on any difference: a field only on one side, a
// different type, a required field Go may omit (or an always-written field
// the schema neither requires nor defaults), or a property without a
// description for kubectl explain.
func TestSchemaMatchesGoTypes(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.kind, func(t *testing.T) {
			schema, _ := get(version(t, loadCRD(t, k.file)), "schema", "openAPIV3Schema").(node)
			require.NotNil(t, schema)
			var problems []string
			compare(k.goType, schema, k.kind, &problems)
			assert.Empty(t, problems, "schema and Go type differ:\n%s", strings.Join(problems, "\n"))
		})
	}
}

var (
	timeType     = reflect.TypeFor[metav1.Time]()
	quantityType = reflect.TypeFor[resource.Quantity]()
	objectMeta   = reflect.TypeFor[metav1.ObjectMeta]()
	durationType = reflect.TypeFor[metav1.Duration]()
	intOrString  = reflect.TypeFor[intstr.IntOrString]()
	rawMessage   = reflect.TypeFor[json.RawMessage]()
)

// jsonField is one field as encoding/json writes it.
type jsonField struct {
	name      string
	typ       reflect.Type
	omittable bool // omitempty or omitzero
}

func jsonFields(t reflect.Type) []jsonField {
	var out []jsonField
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" || !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && (name == "" || strings.Contains(opts, "inline")) {
			out = append(out, jsonFields(f.Type)...)
			continue
		}
		if name == "" {
			name = f.Name
		}
		omit := slices.ContainsFunc(strings.Split(opts, ","), func(o string) bool { return o == "omitempty" || o == "omitzero" })
		out = append(out, jsonField{name: name, typ: f.Type, omittable: omit})
	}
	return out
}

func compare(t reflect.Type, s node, path string, problems *[]string) {
	bad := func(format string, args ...any) {
		*problems = append(*problems, path+": "+fmt.Sprintf(format, args...))
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	wantType := func(want, format string) {
		if s["type"] != want {
			bad("type %v, Go has %s (%s)", s["type"], want, t)
		}
		if format != "" && s["format"] != nil && s["format"] != format {
			bad("format %v, Go has %s", s["format"], format)
		}
	}
	switch {
	case t == objectMeta:
		// Only metadata.name is declared, so CEL rules on the name can
		// report it as their fieldPath.
		want := node{"type": "object", "properties": node{"name": node{"type": "string"}}}
		if !reflect.DeepEqual(s, want) {
			bad("metadata must be %v, got %v", want, s)
		}
		return
	case t == timeType:
		wantType("string", "")
		if s["format"] != "date-time" {
			bad("a metav1.Time needs format date-time")
		}
		return
	case t == durationType:
		wantType("string", "")
		return
	case t == quantityType || t == intOrString:
		if s["x-kubernetes-int-or-string"] != true {
			bad("a %s needs x-kubernetes-int-or-string", t)
		}
		return
	case t == rawMessage && s["x-kubernetes-preserve-unknown-fields"] == true && s["properties"] == nil:
		// Another component's block of a shared object (a ControlPlane's
		// other services): kept as written, never read here.
		wantType("object", "")
		return
	case s["x-kubernetes-preserve-unknown-fields"] == true && s["properties"] == nil:
		// An opaque Kubernetes type (an affinity):
		// the schema keeps it as written and the webhook checks its
		// fields by decoding it as that type, so only types Kubernetes
		// defines may be opaque.
		if t.Kind() != reflect.Struct || !strings.HasPrefix(t.PkgPath(), "k8s.io/api/") {
			bad("only a k8s.io/api struct may be kept as written, not %s", t)
		}
		wantType("object", "")
		return
	}
	switch t.Kind() {
	case reflect.String:
		wantType("string", "")
	case reflect.Bool:
		wantType("boolean", "")
	case reflect.Int32:
		wantType("integer", "int32")
	case reflect.Int64:
		wantType("integer", "int64")
	case reflect.Int:
		wantType("integer", "")
	case reflect.Slice:
		wantType("array", "")
		items, ok := s["items"].(node)
		if !ok {
			bad("array without items")
			return
		}
		compare(t.Elem(), items, path+"[]", problems)
	case reflect.Map:
		wantType("object", "")
		if t.Key().Kind() != reflect.String {
			bad("map key %s is not a string", t.Key())
		}
		ap, ok := s["additionalProperties"].(node)
		if !ok {
			bad("map without additionalProperties")
			return
		}
		compare(t.Elem(), ap, path+"{}", problems)
	case reflect.Struct:
		wantType("object", "")
		props, _ := s["properties"].(node)
		required := map[string]bool{}
		if r, ok := s["required"].([]any); ok {
			for _, n := range r {
				required[n.(string)] = true
			}
		}
		seen := map[string]bool{}
		for _, f := range jsonFields(t) {
			seen[f.name] = true
			fp := path + "." + f.name
			ps, ok := props[f.name].(node)
			if !ok {
				*problems = append(*problems, fp+": in Go, not in the schema")
				continue
			}
			if d, _ := ps["description"].(string); strings.TrimSpace(d) == "" && f.typ != objectMeta {
				*problems = append(*problems, fp+": no description")
			}
			_, hasDefault := ps["default"]
			switch {
			case required[f.name] && f.omittable:
				*problems = append(*problems, fp+": required in the schema, but Go omits it when empty")
			case !required[f.name] && !f.omittable && !hasDefault:
				*problems = append(*problems, fp+": Go always writes it; the schema should require it or give a default")
			}
			compare(f.typ, ps, fp, problems)
		}
		for name := range props {
			if !seen[name] {
				*problems = append(*problems, path+"."+name+": in the schema, not in Go")
			}
		}
		for name := range required {
			if !seen[name] {
				*problems = append(*problems, path+"."+name+": required, but not a field")
			}
		}
	default:
		bad("no schema mapping for Go kind %s", t.Kind())
	}
}

// TestPrinterColumns checks the columns kubectl get shows and that every
// column's JSONPath names a field of the schema.
func TestPrinterColumns(t *testing.T) {
	filter := regexp.MustCompile(`\[\?\(.*?\)\]`)
	for _, k := range kinds {
		t.Run(k.kind, func(t *testing.T) {
			v := version(t, loadCRD(t, k.file))
			schema := get(v, "schema", "openAPIV3Schema").(node)
			var shown []string
			for _, c := range v["additionalPrinterColumns"].([]any) {
				col := c.(node)
				if p, _ := col["priority"].(float64); p == 0 {
					shown = append(shown, col["name"].(string))
				}
				jp := filter.ReplaceAllString(col["jsonPath"].(string), "")
				if strings.HasPrefix(jp, ".metadata.") {
					continue
				}
				cur := schema
				for _, seg := range strings.Split(strings.TrimPrefix(jp, "."), ".") {
					if items, ok := cur["items"].(node); ok {
						cur = items
					}
					next, ok := get(cur, "properties", seg).(node)
					if !assert.True(t, ok, "column %s: %s is not in the schema", col["name"], jp) {
						break
					}
					cur = next
				}
			}
			assert.Equal(t, k.columns, shown)
		})
	}
}

// reservedRules returns every CEL rule that refuses reserved store ids.
func reservedRules(s any, out *[]string) {
	switch v := s.(type) {
	case node:
		if rules, ok := v["x-kubernetes-validations"].([]any); ok {
			for _, r := range rules {
				rule := r.(node)
				if msg, _ := rule["message"].(string); strings.Contains(msg, "reserved os_glance_ / os-glance- prefix") {
					*out = append(*out, rule["rule"].(string))
				}
			}
		}
		for _, c := range v {
			reservedRules(c, out)
		}
	case []any:
		for _, c := range v {
			reservedRules(c, out)
		}
	}
}

// TestReservedIDsMatchStoreconf keeps the CEL rules' reserved ids equal to
// the ones hooks/contract/storeconf refuses: the webhook and the sync hooks use those.
func TestReservedIDsMatchStoreconf(t *testing.T) {
	quoted := regexp.MustCompile(`'([^']*)'`)
	for _, k := range kinds {
		if k.kind == api.KindGlance {
			continue // a Glance has no store id
		}
		t.Run(k.kind, func(t *testing.T) {
			var rules []string
			reservedRules(loadCRD(t, k.file), &rules)
			require.NotEmpty(t, rules)
			for _, rule := range rules {
				before, list, ok := strings.Cut(rule, " in [")
				require.True(t, ok, "rule has no reserved list: %s", rule)
				var ids []string
				for _, m := range quoted.FindAllStringSubmatch(list, -1) {
					ids = append(ids, m[1])
				}
				sort.Strings(ids)
				want := storeconf.ReservedSections()
				if strings.Contains(before, "self.metadata.name") {
					// A name is refused what a store id is, and the
					// names only a standalone backend may not take.
					want = append(want, storeconf.ReservedNames()...)
					sort.Strings(want)
				}
				assert.Equal(t, want, ids)
				for _, p := range storeconf.ReservedPrefixes() {
					assert.Contains(t, before, "startsWith('"+p+"')")
				}
				for _, id := range ids {
					assert.Error(t, storeconf.ValidateBackendName(id), "storeconf accepts the name %q", id)
				}
			}
		})
	}
}

// TestSpecIsBounded requires a bound on every string, list and map under
// spec: users write spec, and the CEL cost estimate depends on the bounds.
// A Kubernetes type's generated schema is that type's, as in a Deployment
// or a NetworkPolicy: it has no bounds, and no CEL rule reads into it.
func TestSpecIsBounded(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.kind, func(t *testing.T) {
			spec := get(version(t, loadCRD(t, k.file)), "schema", "openAPIV3Schema", "properties", "spec").(node)
			_, places := kubeTypesOf(t, k.file)
			generated := map[string]bool{}
			for _, p := range places {
				generated["spec."+p.Field] = true
			}
			var problems []string
			var walk func(s node, path string)
			walk = func(s node, path string) {
				if generated[path] {
					return
				}
				switch s["type"] {
				case "string":
					if s["maxLength"] == nil && s["enum"] == nil {
						problems = append(problems, path+": string without maxLength or enum")
					}
				case "array":
					if s["maxItems"] == nil {
						problems = append(problems, path+": array without maxItems")
					}
					walk(s["items"].(node), path+"[]")
				case "object":
					if ap, ok := s["additionalProperties"].(node); ok {
						if s["maxProperties"] == nil {
							problems = append(problems, path+": map without maxProperties")
						}
						walk(ap, path+"{}")
					}
					props, _ := s["properties"].(node)
					for name, p := range props {
						walk(p.(node), path+"."+name)
					}
				}
			}
			walk(spec, "spec")
			sort.Strings(problems)
			assert.Empty(t, problems)
		})
	}
}

// ownedRuleWidth is how wide the generated rule's lines are, indent aside.
const ownedRuleWidth = 72

// ownedOptionsRule is the CEL rule that keeps extraOptions off the options
// the service renders, generated from storeconf.OwnedOptionKeys and wrapped
// at ownedRuleWidth, each line indented by indent.
func ownedOptionsRule(indent string) string {
	items := make([]string, len(storeconf.OwnedOptionKeys))
	for i, k := range storeconf.OwnedOptionKeys {
		items[i] = "'" + k + "'"
	}
	line := "!self.exists(k, k in ["
	var lines []string
	for i, item := range items {
		if i < len(items)-1 {
			item += ","
		} else {
			item += "])"
		}
		switch {
		case i == 0:
			line += item
		case len(line)+1+len(item) > ownedRuleWidth:
			lines = append(lines, line)
			line = item
		default:
			line += " " + item
		}
	}
	lines = append(lines, line)
	return indent + strings.Join(lines, "\n"+indent)
}

var ownedRule = regexp.MustCompile(`(?m)^( *)!self\.exists\(k, k in \[[^\]]*\]\)`)

// TestOwnedOptionsRule keeps the CEL list of options extraOptions may not
// set generated from the list the renderer refuses: with UPDATE_SCHEMAS=1
// it rewrites the rule in the CRDs (then `make chart-crds`), otherwise it
// fails when a CRD's rule is not the generated one.
func TestOwnedOptionsRule(t *testing.T) {
	for _, file := range []string{"controlplanes.c5c3.io.yaml", "glancebackends.glance.openstack.c5c3.io.yaml"} {
		raw, err := os.ReadFile(file)
		require.NoError(t, err)
		found := ownedRule.FindAllStringSubmatchIndex(string(raw), -1)
		require.Len(t, found, 1, "%s holds the extraOptions rule once", file)
		m := found[0]
		indent := string(raw[m[2]:m[3]])
		want := ownedOptionsRule(indent)
		if os.Getenv("UPDATE_SCHEMAS") != "" {
			out := string(raw[:m[0]]) + want + string(raw[m[1]:])
			require.NoError(t, os.WriteFile(file, []byte(out), 0o644))
			continue
		}
		assert.Equal(t, want, string(raw[m[0]:m[1]]), "%s: the extraOptions rule is generated from storeconf.OwnedOptionKeys; run UPDATE_SCHEMAS=1 go test ./schemas -run TestOwnedOptionsRule, then make chart-crds", file)
	}
}

// Every kind has a short name and is in the openstack and c5c3 categories
// (`kubectl get openstack` lists them all). kubectl expands a category
// before it looks for a resource of that name, so no category may be a name
// a reader types for one of the kinds (the guide's `kubectl get glance`).
func TestShortNamesAndCategories(t *testing.T) {
	names := map[string]bool{}
	var categories []string
	for _, k := range kinds {
		crd := loadCRD(t, k.file)
		n, _ := get(crd, "spec", "names").(node)
		short, _ := n["shortNames"].([]any)
		assert.NotEmpty(t, short, "%s has a short name", k.kind)
		own := map[string]bool{}
		for _, v := range append([]any{n["plural"], n["singular"], strings.ToLower(k.kind)}, short...) {
			s, _ := v.(string)
			own[s] = true
		}
		for s := range own {
			assert.False(t, names[s], "%q names two kinds", s)
			names[s] = true
		}
		cats, _ := n["categories"].([]any)
		var got []string
		for _, c := range cats {
			got = append(got, c.(string))
		}
		assert.Equal(t, []string{"openstack", "c5c3"}, got, "%s categories", k.kind)
		categories = append(categories, got...)
	}
	for _, c := range categories {
		assert.False(t, names[c], "category %q shadows a resource name in kubectl", c)
	}
}

// TestControlPlaneDefaultRelease keeps the release the ControlPlane's image
// tag rule falls back to, and the one its description names, in step with
// the default the hooks fill in.
func TestControlPlaneDefaultRelease(t *testing.T) {
	schema, _ := get(version(t, loadCRD(t, schemas.ControlPlaneFile)), "schema", "openAPIV3Schema").(node)
	spec, _ := get(schema, "properties", "spec").(node)
	rules, _ := spec["x-kubernetes-validations"].([]any)
	var found bool
	for _, r := range rules {
		rule, _ := r.(node)["rule"].(string)
		if strings.Contains(rule, "self.services.glance.image.tag") {
			found = true
			assert.Contains(t, rule, "'"+api.DefaultOpenStackRelease+"'", "the tag rule's default release")
		}
	}
	assert.True(t, found, "ControlPlane spec has the image tag rule")
	desc, _ := get(spec, "properties", "openStackRelease", "description").(string)
	assert.Contains(t, desc, "default "+api.DefaultOpenStackRelease)
}

// The ControlPlane sync hook holds services.glance.backends[] to the CRD's
// maxItems too: one limit, in the schema and in Go.
func TestBackendEntriesLimitMatchesGo(t *testing.T) {
	crd := loadCRD(t, schemas.ControlPlaneFile)
	backends := get(version(t, crd), "schema", "openAPIV3Schema", "properties", "spec", "properties", "services",
		"properties", "glance", "properties", "backends")
	require.NotNil(t, backends)
	assert.EqualValues(t, api.MaxBackendEntries, get(backends.(node), "maxItems"))
}

// The CRD's services are exactly the services the reference's ControlPlane
// knows (api.KnownServices, the list render and /validate judge a key by),
// and no other key is kept: the API server's strict field validation then
// refuses a misspelt service where the webhook does.
func TestControlPlaneServicesAreTheKnownOnes(t *testing.T) {
	services := get(version(t, loadCRD(t, schemas.ControlPlaneFile)), "schema", "openAPIV3Schema", "properties", "spec", "properties", "services").(node)
	props, _ := services["properties"].(node)
	got := slices.Sorted(maps.Keys(props))
	assert.Equal(t, slices.Sorted(slices.Values(api.KnownServices)), got, "spec.services properties are api.KnownServices")
	if services["x-kubernetes-preserve-unknown-fields"] == true {
		t.Error("spec.services keeps unknown keys: a misspelt service would be stored, not refused")
	}
}

// The CRDs refuse the S3 address under the other kind's name with the
// webhook's words, at the field.
func TestMisnamedS3AddressRules(t *testing.T) {
	cases := map[string]struct {
		file string
		path []string
		msg  string
	}{
		"GlanceBackend s3.endpoint":  {schemas.GlanceBackendFile, []string{"spec", "properties", "s3"}, api.MisnamedS3Endpoint},
		"ControlPlane entry s3.host": {schemas.ControlPlaneFile, []string{"spec", "properties", "services", "properties", "glance", "properties", "backends", "items", "properties", "s3"}, api.MisnamedS3Host},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			path := append([]string{"schema", "openAPIV3Schema", "properties"}, c.path...)
			s3, ok := get(version(t, loadCRD(t, c.file)), path...).(node)
			require.True(t, ok, "%v", path)
			var messages []string
			for _, r := range s3["x-kubernetes-validations"].([]any) {
				messages = append(messages, strings.TrimSpace(r.(node)["message"].(string)))
			}
			assert.Contains(t, messages, c.msg)
		})
	}
}
