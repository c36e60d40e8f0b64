package render

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/simulate/chain"
)

const secretDoc = `apiVersion: v1
kind: Secret
metadata:
  name: creds
stringData:
  access-key-id: AKEXAMPLE
  secret-access-key: supersecretvalue
`

// inputError asserts err is an *InputError with the exact text.
func inputError(t *testing.T, err error, want string) {
	t.Helper()
	require.Error(t, err)
	var ie *InputError
	require.True(t, errors.As(err, &ie), "want an *InputError, got %T: %v", err, err)
	assert.Equal(t, want, err.Error())
	assert.Equal(t, ExitInput, ExitCode(err))
}

func TestParseMalformedYAMLNamesTheFileLine(t *testing.T) {
	in := secretDoc + "---\n# a comment\napiVersion: v1\nkind: Secret\nmetadata:\n  name: x\n  labels: {a: [b}\n"
	_, err := Parse([]byte(in), "in.yaml", "default")
	// The document starts on line 9 (its comment); go-yaml's line number,
	// counted from the document, is moved to count from the file.
	inputError(t, err, "in.yaml:10: malformed YAML: yaml: line 13: did not find expected ',' or ']'")

	_, err = Parse([]byte(secretDoc+"---\napiVersion: v1\nkind: Secret\n  bad: indent\n"), "in.yaml", "default")
	inputError(t, err, "in.yaml:9: malformed YAML: yaml: line 11: mapping values are not allowed in this context")
}

func TestParseMalformedJSON(t *testing.T) {
	_, err := Parse([]byte("{\"apiVersion\": \"v1\",\n \"kind\": \"Secret\",\n \"metadata\": {\"name\": \"x\"},,\n}"), "in.json", "default")
	inputError(t, err, "in.json:3: malformed JSON: invalid character ',' looking for beginning of object key string")
}

func TestParseRejectsOtherKinds(t *testing.T) {
	in := secretDoc + "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: glance}\n"
	_, err := Parse([]byte(in), "in.yaml", "default")
	inputError(t, err, "in.yaml:9: apps/v1 Deployment is not a kind render reads: give it ControlPlane (c5c3.io/v1alpha1), Glance and GlanceBackend (glance.openstack.c5c3.io/v1alpha1), Secret and ConfigMap (v1) objects")
}

func TestParseRejectsWrongAPIVersion(t *testing.T) {
	_, err := Parse([]byte("apiVersion: glance.openstack.c5c3.io/v1beta1\nkind: Glance\nmetadata: {name: g}\n"), "in.yaml", "default")
	inputError(t, err, "in.yaml:1: Glance has apiVersion glance.openstack.c5c3.io/v1beta1; render reads glance.openstack.c5c3.io/v1alpha1 Glance")
}

func TestParseMissingName(t *testing.T) {
	_, err := Parse([]byte("apiVersion: c5c3.io/v1alpha1\nkind: ControlPlane\nmetadata: {namespace: openstack}\n"), "cp.yaml", "default")
	inputError(t, err, "cp.yaml:1: ControlPlane has no metadata.name")

	_, err = Parse([]byte("apiVersion: c5c3.io/v1alpha1\nkind: ControlPlane\nmetadata: {generateName: cp-}\n"), "cp.yaml", "default")
	inputError(t, err, "cp.yaml:1: ControlPlane has no metadata.name: generateName needs a server to pick the name, so give the object a name")

	_, err = Parse([]byte("apiVersion: c5c3.io/v1alpha1\nkind: ControlPlane\n"), "cp.yaml", "default")
	inputError(t, err, "cp.yaml:1: ControlPlane has no metadata.name")
}

func TestParseMissingKind(t *testing.T) {
	_, err := Parse([]byte("metadata: {name: x}\n"), "x.yaml", "default")
	inputError(t, err, "x.yaml:1: the object has no apiVersion or kind")
	_, err = Parse([]byte("- a\n- b\n"), "x.yaml", "default")
	inputError(t, err, "x.yaml:1: the document is not an object (got a list)")
}

func TestParseInvalidNames(t *testing.T) {
	_, err := Parse([]byte("apiVersion: v1\nkind: Secret\nmetadata: {name: Bad_Name}\n"), "x.yaml", "default")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `x.yaml:1: Secret name "Bad_Name" is not valid: `)
	_, err = Parse([]byte("apiVersion: v1\nkind: Secret\nmetadata: {name: ok, namespace: Open.Stack}\n"), "x.yaml", "default")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `x.yaml:1: Secret ok: namespace "Open.Stack" is not valid: `)
}

func TestParseSecretDataMustBeBase64AndIsNeverQuoted(t *testing.T) {
	_, err := Parse([]byte("apiVersion: v1\nkind: Secret\nmetadata: {name: creds}\ndata: {secret-access-key: 'not base64!supersecret'}\n"), "s.yaml", "openstack")
	inputError(t, err, "s.yaml:1: Secret openstack/creds: data[secret-access-key] is not base64 (use stringData for plain text)")
	assert.NotContains(t, err.Error(), "supersecret")

	_, err = Parse([]byte("apiVersion: v1\nkind: Secret\nmetadata: {name: creds}\nstringData: {port: 5}\n"), "s.yaml", "openstack")
	inputError(t, err, "s.yaml:1: Secret openstack/creds: stringData[port] is not a string")
}

func TestParseDefaultsNamespaceAndDropsServerFields(t *testing.T) {
	in := "# leading comment\n---\n" + secretDoc + "---\n# only a comment\n---\n" +
		"apiVersion: v1\nkind: Secret\nmetadata:\n  name: other\n  namespace: openstack\n  uid: 1234\n  resourceVersion: '9'\n  managedFields: []\nstatus: {phase: x}\n"
	docs, err := Parse([]byte(in), "in.yaml", "team-a")
	require.NoError(t, err)
	require.Len(t, docs, 2)
	assert.Equal(t, chain.Ref{APIVersion: "v1", Kind: "Secret", Namespace: "team-a", Name: "creds"}, docs[0].Ref())
	assert.Equal(t, "in.yaml:3", docs[0].Source)
	assert.Equal(t, chain.Ref{APIVersion: "v1", Kind: "Secret", Namespace: "openstack", Name: "other"}, docs[1].Ref())
	assert.Equal(t, "in.yaml:13", docs[1].Source)
	assert.Equal(t, map[string]any{"name": "other", "namespace": "openstack"}, docs[1].Object["metadata"])
	assert.NotContains(t, docs[1].Object, "status")
}

func TestParseJSONStreamsArraysAndLists(t *testing.T) {
	in := `{"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "a"}}
[{"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "b"}},
 {"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "c"}}]}]`
	docs, err := Parse([]byte(in), "in.json", "default")
	require.NoError(t, err)
	var names, sources []string
	for _, d := range docs {
		names = append(names, d.Ref().Name)
		sources = append(sources, d.Source)
	}
	assert.Equal(t, []string{"a", "b", "c"}, names)
	assert.Equal(t, []string{"in.json:1", "in.json:2: item 1", "in.json:2: item 2: item 1"}, sources)

	_, err = Parse([]byte(`{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}]}`), "l.json", "default")
	inputError(t, err, "l.json:1: item 1: v1 Pod is not a kind render reads: give it ControlPlane (c5c3.io/v1alpha1), Glance and GlanceBackend (glance.openstack.c5c3.io/v1alpha1), Secret and ConfigMap (v1) objects")
}

// A YAML stream whose documents are written as JSON reads as kubectl
// reads it: "---" separates documents whatever the first one looks like.
func TestParseYAMLStreamOfJSONDocuments(t *testing.T) {
	cases := map[string]struct {
		reason, in string
		names      []string
		sources    []string
	}{
		"JSON first": {
			reason: "a JSON document, then a YAML one",
			in:     "{\"apiVersion\": \"v1\", \"kind\": \"Secret\", \"metadata\": {\"name\": \"a\"}}\n---\n" + strings.ReplaceAll(secretDoc, "name: creds", "name: b"),
			names:  []string{"a", "b"}, sources: []string{"in.yaml:1", "in.yaml:3"},
		},
		"JSON only": {
			reason: "JSON documents separated by ---, each on its own lines",
			in:     "{\"apiVersion\": \"v1\", \"kind\": \"Secret\",\n \"metadata\": {\"name\": \"a\"}}\n---\n{\"apiVersion\": \"v1\", \"kind\": \"Secret\", \"metadata\": {\"name\": \"b\"}}\n",
			names:  []string{"a", "b"}, sources: []string{"in.yaml:1", "in.yaml:4"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			docs, err := Parse([]byte(tc.in), "in.yaml", "default")
			require.NoError(t, err, tc.reason)
			var names, sources []string
			for _, d := range docs {
				names, sources = append(names, d.Ref().Name), append(sources, d.Source)
			}
			assert.Equal(t, tc.names, names, tc.reason)
			assert.Equal(t, tc.sources, sources, tc.reason)
		})
	}
	// Still strict inside a JSON document of a YAML stream.
	_, err := Parse([]byte("{\"apiVersion\": \"v1\", \"kind\": \"Secret\", \"metadata\": {\"name\": \"a\", \"name\": \"b\"}}\n---\n"), "in.yaml", "default")
	require.Error(t, err, "a key given twice")
}

func TestReadPathsDirectoryStdinAndDuplicates(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
	}
	write("b.yaml", strings.ReplaceAll(secretDoc, "name: creds", "name: from-b"))
	write("a.yml", strings.ReplaceAll(secretDoc, "name: creds", "name: from-a"))
	write("c.json", `{"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "from-c"}}`)
	write("notes.txt", "not read")
	docs, err := ReadPaths([]string{dir, "-"}, strings.NewReader(secretDoc), "openstack")
	require.NoError(t, err)
	var names []string
	for _, d := range docs {
		names = append(names, d.Ref().Name)
	}
	assert.Equal(t, []string{"from-a", "from-b", "from-c", "creds"}, names, "directory files in name order, then stdin")
	assert.Equal(t, "<stdin>:1", docs[3].Source)

	_, err = ReadPaths([]string{"-", "-"}, strings.NewReader(""), "openstack")
	inputError(t, err, "-f - given twice: standard input can be read once")

	// The same object twice with the same content is read once.
	b := filepath.Join(dir, "b.yaml")
	docs, err = ReadPaths([]string{b, dir}, nil, "openstack")
	require.NoError(t, err)
	require.Len(t, docs, 3)
	assert.Equal(t, "from-b", docs[0].Ref().Name)
	assert.Equal(t, b+":1", docs[0].Source, "the first place it is given")

	// With different content it is refused, naming both places.
	write("d.yaml", strings.ReplaceAll(strings.ReplaceAll(secretDoc, "name: creds", "name: from-b"), "access-key-id: ", "access-key-id: x"))
	_, err = ReadPaths([]string{b, filepath.Join(dir, "d.yaml")}, nil, "openstack")
	inputError(t, err, filepath.Join(dir, "d.yaml")+":1: Secret openstack/from-b is given twice with different content (first at "+b+":1); render applies each object once: "+
		"keep one, or see what the change does with --diff -f BEFORE -f AFTER")

	_, err = ReadPaths([]string{filepath.Join(dir, "missing.yaml")}, nil, "openstack")
	inputError(t, err, filepath.Join(dir, "missing.yaml")+": cannot read: no such file or directory")

	empty := t.TempDir()
	_, err = ReadPaths([]string{empty}, nil, "openstack")
	inputError(t, err, empty+": the directory holds no *.yaml, *.yml or *.json file")
}

// A key given twice is refused with both lines, in YAML and in JSON, at any
// depth: the reader would keep the last one without a word.
func TestParseRefusesDuplicateKeys(t *testing.T) {
	cases := map[string]struct{ name, in, want string }{
		"top level": {"in.yaml", "apiVersion: v1\nkind: Secret\nkind: Secret\nmetadata:\n  name: x\n",
			"in.yaml:3: duplicate key kind: set at line 2 and again at line 3; only one may be given"},
		"nested in a later document": {"in.yaml", secretDoc + "---\napiVersion: c5c3.io/v1alpha1\nkind: ControlPlane\nmetadata:\n  name: cp\nspec:\n  services:\n    glance:\n      replicas: 1\n      backends: []\n      replicas: 3\n",
			"in.yaml:18: duplicate key spec.services.glance.replicas: set at line 16 and again at line 18; only one may be given"},
		"in a list item": {"in.yaml", "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Secret\n  metadata: {name: x, name: y}\n",
			"in.yaml:6: duplicate key items[0].metadata.name: set at line 6 and again at line 6; only one may be given"},
		"JSON": {"in.json", "{\"apiVersion\": \"v1\",\n \"kind\": \"Secret\",\n \"metadata\": {\"name\": \"x\"},\n \"metadata\": {\"name\": \"y\"}}\n",
			"in.json:4: duplicate key metadata: set at line 3 and again at line 4; only one may be given"},
		"JSON array item": {"in.json", "[{\"kind\": \"Secret\"},\n {\"kind\": \"Secret\",\n  \"kind\": \"Secret\"}]\n",
			"in.json:3: duplicate key [1].kind: set at line 2 and again at line 3; only one may be given"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			docs, err := Parse([]byte(tc.in), tc.name, "default")
			assert.Nil(t, docs)
			inputError(t, err, tc.want)
		})
	}
	// The same key in two sibling mappings is no duplicate.
	_, err := Parse([]byte(secretDoc), "in.yaml", "default")
	require.NoError(t, err)
}

// Under a ControlPlane's services, a misspelt field of glance is an unknown
// field, and so is a misspelt service: the CRD lists the services there
// are, so the ControlPlane cannot render as one running no Glance.
func TestParseRefusesTyposUnderServices(t *testing.T) {
	const head = "apiVersion: c5c3.io/v1alpha1\nkind: ControlPlane\nmetadata:\n  name: cp\nspec:\n  services:\n"
	cases := map[string]struct{ in, want string }{
		"a field of glance": {head + "    glance:\n      replcas: 3\n      backends: []\n",
			`in.yaml:8: ControlPlane default/cp: unknown field "spec.services.glance.replcas" (did you mean "replicas"?): the ControlPlane schema does not define it (kubectl apply refuses it too)`},
		"a service": {head + "    glanse: {}\n    glance:\n      backends: []\n",
			`in.yaml:7: ControlPlane default/cp: unknown field "spec.services.glanse" (did you mean "glance"?): the ControlPlane schema does not define it (kubectl apply refuses it too)`},
		"nothing close": {head + "    zzzzzzzz: {}\n",
			`in.yaml:7: ControlPlane default/cp: unknown field "spec.services.zzzzzzzz": the ControlPlane schema does not define it (kubectl apply refuses it too)`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			docs, err := Parse([]byte(tc.in), "in.yaml", "default")
			assert.Nil(t, docs)
			inputError(t, err, tc.want)
		})
	}
	// The services the CRD knows stay accepted.
	_, err := Parse([]byte(head+"    keystone: {}\n    glance:\n      backends: []\n"), "in.yaml", "default")
	require.NoError(t, err)
}
