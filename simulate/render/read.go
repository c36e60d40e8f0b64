package render

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"

	yamlv3 "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/simulate/chain"
)

// Doc is one input object and where it was read from.
type Doc struct {
	Object chain.Object
	// Source is "<file>:<line>" of the document (or "<file>: item N" inside
	// a JSON array or a List), for messages.
	Source string
}

// Ref is the object's identity.
func (d Doc) Ref() chain.Ref { return chain.RefOf(d.Object) }

// StdinName is how standard input is named in messages.
const StdinName = "<stdin>"

// accepted are the kinds render reads, by kind, with their apiVersion.
var accepted = map[string]string{
	api.KindControlPlane:  api.ControlPlaneAPIVersion,
	api.KindGlance:        api.GlanceAPIVersion,
	api.KindGlanceBackend: api.GlanceAPIVersion,
	"Secret":              "v1",
	"ConfigMap":           "v1",
}

// inputExtensions are the files a directory contributes.
var inputExtensions = map[string]bool{".yaml": true, ".yml": true, ".json": true}

// ReadPaths reads every path in order: a file, a directory (its *.yaml,
// *.yml and *.json files in name order, not recursing), or "-" for stdin.
// Objects without a namespace get defaultNamespace. An object that appears
// twice is read once when both copies are the same, and is an error when
// they differ.
func ReadPaths(paths []string, stdin io.Reader, defaultNamespace string) ([]Doc, error) {
	if len(paths) == 0 {
		return nil, inputErr("", "no input: give -f FILE, -f DIR or -f -")
	}
	var docs []Doc
	stdinRead := false
	for _, p := range paths {
		if p == "-" {
			if stdinRead {
				return nil, inputErr("", "-f - given twice: standard input can be read once")
			}
			stdinRead = true
			data, err := io.ReadAll(stdin)
			if err != nil {
				return nil, inputErr(StdinName, "cannot read: %v", err)
			}
			d, err := Parse(data, StdinName, defaultNamespace)
			if err != nil {
				return nil, err
			}
			docs = append(docs, d...)
			continue
		}
		files, err := expand(p)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				return nil, inputErr(f, "cannot read: %v", unwrapPathError(err))
			}
			d, err := Parse(data, f, defaultNamespace)
			if err != nil {
				return nil, err
			}
			docs = append(docs, d...)
		}
	}
	return dedupe(docs)
}

// expand turns a path into the files to read.
func expand(p string) ([]string, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, inputErr(p, "cannot read: %v", unwrapPathError(err))
	}
	if !st.IsDir() {
		return []string{p}, nil
	}
	entries, err := os.ReadDir(p)
	if err != nil {
		return nil, inputErr(p, "cannot read the directory: %v", unwrapPathError(err))
	}
	var files []string
	for _, e := range entries {
		if !e.IsDir() && inputExtensions[strings.ToLower(filepath.Ext(e.Name()))] {
			files = append(files, filepath.Join(p, e.Name()))
		}
	}
	sort.Strings(files)
	if len(files) == 0 {
		return nil, inputErr(p, "the directory holds no *.yaml, *.yml or *.json file")
	}
	return files, nil
}

// unwrapPathError drops the path os errors repeat, since messages already
// start with it.
func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Parse reads one YAML or JSON stream as kubectl reads it. YAML documents
// are separated by "---" lines, and each may be written as JSON; input
// without such a line that starts with JSON is one or more objects or
// arrays of objects. A v1 List contributes its items.
func Parse(data []byte, name, defaultNamespace string) ([]Doc, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	var raw []rawDoc
	var err error
	if len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') && !hasDocSeparator(data) {
		raw, err = splitJSON(data, name)
	} else {
		raw, err = splitYAML(data, name)
	}
	if err != nil {
		return nil, err
	}
	var docs []Doc
	for _, r := range raw {
		d, err := toDocs(r, defaultNamespace)
		if err != nil {
			return nil, err
		}
		docs = append(docs, d...)
	}
	return docs, nil
}

// rawDoc is one decoded document before it is checked.
type rawDoc struct {
	value  any
	source string
	// file names the input, for a source at another line.
	file string
	// text is the document as written, its first line being line
	// firstLine of the file; prefix is the path of value inside text
	// (an item of a JSON array or of a List). They place unknown fields.
	text      []byte
	firstLine int
	prefix    fieldPath
}

// lineOf is the file line of the field at path, or 0 when it cannot be
// found.
func (r rawDoc) lineOf(path fieldPath) int {
	var root yamlv3.Node
	if yamlv3.Unmarshal(r.text, &root) != nil || len(root.Content) == 0 {
		return 0
	}
	n := root.Content[0]
	line := n.Line
	for _, seg := range append(append(fieldPath{}, r.prefix...), path...) {
		var next *yamlv3.Node
		switch seg := seg.(type) {
		case string:
			if n.Kind == yamlv3.MappingNode {
				for i := 0; i+1 < len(n.Content); i += 2 {
					if n.Content[i].Value == seg {
						line, next = n.Content[i].Line, n.Content[i+1]
					}
				}
			}
		case int:
			if n.Kind == yamlv3.SequenceNode && seg < len(n.Content) {
				next = n.Content[seg]
				line = next.Line
			}
		}
		if next == nil {
			return 0
		}
		n = next
	}
	return r.firstLine + line - 1
}

var docSeparator = regexp.MustCompile(`^---(\s|$)`)

// hasDocSeparator tells whether a line of data separates YAML documents:
// such a line cannot be part of a JSON value (a JSON string holds no raw
// newline), so a stream with one is YAML whose documents may be JSON.
func hasDocSeparator(data []byte) bool {
	for _, l := range strings.Split(string(data), "\n") {
		if docSeparator.MatchString(strings.TrimRight(l, "\r")) {
			return true
		}
	}
	return false
}

// yamlLine finds the line numbers go-yaml puts in its messages.
var yamlLine = regexp.MustCompile(`\bline (\d+)\b`)

func splitYAML(data []byte, name string) ([]rawDoc, error) {
	var out []rawDoc
	lines := strings.SplitAfter(string(data), "\n")
	start := 1 // first line of the current document
	var cur strings.Builder
	flush := func() error {
		text := cur.String()
		cur.Reset()
		first := firstContentLine(text)
		if first < 0 {
			return nil // empty or comments only
		}
		source := fmt.Sprintf("%s:%d", name, start+first)
		j, err := yaml.YAMLToJSON([]byte(text))
		if err != nil {
			msg := strings.TrimPrefix(err.Error(), "error converting YAML to JSON: ")
			// go-yaml counts lines from the document; count them from the file.
			msg = yamlLine.ReplaceAllStringFunc(msg, func(m string) string {
				n, _ := strconv.Atoi(strings.TrimPrefix(m, "line "))
				return fmt.Sprintf("line %d", n+start-1)
			})
			return inputErr(source, "malformed YAML: %s", msg)
		}
		var v any
		if err := json.Unmarshal(j, &v); err != nil {
			return inputErr(source, "malformed YAML: %v", err)
		}
		if err := checkDuplicateKeys([]byte(text), name, start); err != nil {
			return err
		}
		if v == nil {
			return nil
		}
		out = append(out, rawDoc{value: v, source: source, file: name, text: []byte(text), firstLine: start})
		return nil
	}
	for i, l := range lines {
		trimmed := strings.TrimRight(l, "\r\n")
		if docSeparator.MatchString(trimmed) || trimmed == "..." {
			if err := flush(); err != nil {
				return nil, err
			}
			start = i + 2
			continue
		}
		cur.WriteString(l)
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return out, nil
}

// firstContentLine is the 0-based line of the first line that is neither
// blank nor a comment, or -1.
func firstContentLine(text string) int {
	for i, l := range strings.Split(text, "\n") {
		t := strings.TrimSpace(l)
		if t != "" && !strings.HasPrefix(t, "#") {
			return i
		}
	}
	return -1
}

func splitJSON(data []byte, name string) ([]rawDoc, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var out []rawDoc
	for n := 1; ; n++ {
		offset := dec.InputOffset()
		var v any
		err := dec.Decode(&v)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			at := offset
			var se *json.SyntaxError
			if errors.As(err, &se) {
				at = se.Offset
			}
			if errors.Is(err, io.ErrUnexpectedEOF) {
				at = int64(len(data))
			}
			return nil, inputErr(fmt.Sprintf("%s:%d", name, lineAt(data, at)), "malformed JSON: %v", err)
		}
		source := fmt.Sprintf("%s:%d", name, lineAt(data, skipSpace(data, offset)))
		text, firstLine := data[offset:dec.InputOffset()], lineAt(data, offset)
		if err := checkDuplicateKeys(text, name, firstLine); err != nil {
			return nil, err
		}
		if arr, ok := v.([]any); ok {
			for i, item := range arr {
				out = append(out, rawDoc{value: item, source: fmt.Sprintf("%s: item %d", source, i+1), file: name, text: text, firstLine: firstLine, prefix: fieldPath{i}})
			}
			continue
		}
		out = append(out, rawDoc{value: v, source: source, file: name, text: text, firstLine: firstLine})
	}
}

func skipSpace(data []byte, off int64) int64 {
	for off < int64(len(data)) && strings.ContainsRune(" \t\r\n", rune(data[off])) {
		off++
	}
	return off
}

// lineAt is the 1-based line of a byte offset.
func lineAt(data []byte, off int64) int {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	return bytes.Count(data[:off], []byte("\n")) + 1
}

// toDocs checks one decoded document and expands a List.
func toDocs(r rawDoc, defaultNamespace string) ([]Doc, error) {
	o, ok := r.value.(map[string]any)
	if !ok {
		return nil, inputErr(r.source, "the document is not an object (got %s)", jsonType(r.value))
	}
	kind, _ := o["kind"].(string)
	apiVersion, _ := o["apiVersion"].(string)
	if kind == "List" && apiVersion == "v1" {
		items, _ := o["items"].([]any)
		var out []Doc
		for i, item := range items {
			d, err := toDocs(rawDoc{value: item, source: fmt.Sprintf("%s: item %d", r.source, i+1),
				file: r.file, text: r.text, firstLine: r.firstLine, prefix: r.prefix.child("items").child(i)}, defaultNamespace)
			if err != nil {
				return nil, err
			}
			out = append(out, d...)
		}
		return out, nil
	}
	obj, err := checkObject(o, r, defaultNamespace)
	if err != nil {
		return nil, err
	}
	return []Doc{{Object: obj, Source: r.source}}, nil
}

func jsonType(v any) string {
	switch v.(type) {
	case []any:
		return "a list"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	}
	return "null"
}

// serverSet are metadata fields the API server owns; an input carrying them
// (say, from kubectl get -o yaml) is applied without them, as kubectl apply
// would.
var serverSet = []string{"uid", "resourceVersion", "generation", "creationTimestamp", "managedFields",
	"selfLink", "deletionTimestamp", "deletionGracePeriodSeconds"}

// checkObject checks what the API server would check before admission, and
// returns the object as render applies it.
func checkObject(o map[string]any, r rawDoc, defaultNamespace string) (chain.Object, error) {
	source := r.source
	kind, err := checkType(o, source)
	if err != nil {
		return nil, err
	}
	meta, name, ns, err := checkMetadata(o, kind, source, defaultNamespace)
	if err != nil {
		return nil, err
	}
	what := fmt.Sprintf("%s %s/%s", kind, ns, name)
	for _, f := range serverSet {
		delete(meta, f)
	}
	delete(o, "status")
	unknown, err := strictFields(o)
	if err != nil {
		return nil, err
	}
	if len(unknown) > 0 {
		for i := range unknown {
			unknown[i].line = r.lineOf(unknown[i].path)
		}
		sortByLine(unknown)
		if l := unknown[0].line; l > 0 {
			source = fmt.Sprintf("%s:%d", r.file, l)
		}
		return nil, inputErr(source, "%s: %s", what, describeUnknown(kind, unknown))
	}
	if err := checkKind(kind, o, source, what); err != nil {
		return nil, err
	}
	return o, nil
}

// checkType checks the object is of a kind, at the version, render reads.
func checkType(o map[string]any, source string) (string, error) {
	kind, _ := o["kind"].(string)
	apiVersion, _ := o["apiVersion"].(string)
	if kind == "" || apiVersion == "" {
		return "", inputErr(source, "the object has no apiVersion or kind")
	}
	want, known := accepted[kind]
	if !known {
		return "", inputErr(source, "%s %s is not a kind render reads: give it ControlPlane (%s), Glance and GlanceBackend (%s), Secret and ConfigMap (v1) objects",
			apiVersion, kind, api.ControlPlaneAPIVersion, api.GlanceAPIVersion)
	}
	if apiVersion != want {
		return "", inputErr(source, "%s has apiVersion %s; render reads %s %s", kind, apiVersion, want, kind)
	}
	return kind, nil
}

// checkMetadata checks the object's name and namespace, the namespace
// defaulted, and returns its metadata (made when missing) with both.
func checkMetadata(o map[string]any, kind, source, defaultNamespace string) (meta map[string]any, name, ns string, err error) {
	meta, ok := o["metadata"].(map[string]any)
	if !ok {
		if _, present := o["metadata"]; present {
			return nil, "", "", inputErr(source, "%s: metadata is not an object", kind)
		}
		meta = map[string]any{}
		o["metadata"] = meta
	}
	name, _ = meta["name"].(string)
	if name == "" {
		if _, gen := meta["generateName"]; gen {
			return nil, "", "", inputErr(source, "%s has no metadata.name: generateName needs a server to pick the name, so give the object a name", kind)
		}
		return nil, "", "", inputErr(source, "%s has no metadata.name", kind)
	}
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return nil, "", "", inputErr(source, "%s name %q is not valid: %s", kind, name, errs[0])
	}
	ns, _ = meta["namespace"].(string)
	if ns == "" {
		ns = defaultNamespace
		meta["namespace"] = ns
	}
	if errs := validation.IsDNS1123Label(ns); len(errs) > 0 {
		return nil, "", "", inputErr(source, "%s %s: namespace %q is not valid: %s", kind, name, ns, errs[0])
	}
	return meta, name, ns, nil
}

// checkKind is what one kind checks beyond its schema. (A ControlPlane's
// services need nothing more: the CRD lists the services there are, so a
// misspelt one is an unknown field.)
func checkKind(kind string, o map[string]any, source, what string) error {
	if kind == "Secret" {
		return checkSecret(o, source, what)
	}
	return nil
}

// checkSecret checks data is base64 and stringData holds strings, naming
// keys and never values.
func checkSecret(o map[string]any, source, what string) error {
	for _, field := range []string{"data", "stringData"} {
		v, present := o[field]
		if !present || v == nil {
			continue
		}
		m, ok := v.(map[string]any)
		if !ok {
			return inputErr(source, "%s: %s is not a map", what, field)
		}
		for _, k := range sortedKeys(m) {
			s, ok := m[k].(string)
			if !ok {
				return inputErr(source, "%s: %s[%s] is not a string", what, field, k)
			}
			if field == "data" {
				if _, err := base64.StdEncoding.DecodeString(s); err != nil {
					return inputErr(source, "%s: data[%s] is not base64 (use stringData for plain text)", what, k)
				}
			}
		}
	}
	return nil
}

// dedupe keeps the first of objects given more than once with the same
// content (the same Secret in several files of a directory), and refuses
// one given again with different content: applying both, as kubectl apply
// -f DIR would, makes the result depend on file names, which is seldom what
// was meant. --diff is the way to see what changing an object does.
func dedupe(docs []Doc) ([]Doc, error) {
	first := map[chain.Ref]Doc{}
	out := docs[:0:0]
	for _, d := range docs {
		r := d.Ref()
		f, dup := first[r]
		if !dup {
			first[r] = d
			out = append(out, d)
			continue
		}
		if !reflect.DeepEqual(f.Object, d.Object) {
			return nil, inputErr(d.Source, "%s is given twice with different content (first at %s); render applies each object once: "+
				"keep one, or see what the change does with --diff -f BEFORE -f AFTER", refString(r), f.Source)
		}
	}
	return out, nil
}

func refString(r chain.Ref) string { return r.Kind + " " + r.Namespace + "/" + r.Name }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
