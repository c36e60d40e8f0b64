// Command kubeschema prints the structural schema controller-gen generates
// for Kubernetes types and for this API's types whose CRD lines are
// generated (hooks/contract/api, read from this checkout through the
// module's replace directive), as a JSON object from each type's name
// (k8s.io/api/apps/v1.DeploymentStrategy) to its flattened schema. The CRDs
// of schemas/ embed these schemas where a field is that type; the schemas
// package's tests run this command and splice its output (UPDATE_SCHEMAS=1)
// or fail when a CRD differs from it.
//
// It is a module of its own so the service's module never depends on
// controller-tools; the k8s.io/api it reads is pinned to the service's.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"golang.org/x/tools/go/packages"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/controller-tools/pkg/crd"
	crdmarkers "sigs.k8s.io/controller-tools/pkg/crd/markers"
	"sigs.k8s.io/controller-tools/pkg/loader"
	"sigs.k8s.io/controller-tools/pkg/markers"
)

func main() {
	out, err := generate(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "kubeschema:", err)
		os.Exit(1)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, "kubeschema:", err)
		os.Exit(1)
	}
}

// generate loads the packages of the named types and returns each type's
// schema as controller-gen builds it for a CRD: the type's schema with
// every referenced type inlined (flattened), known types such as
// IntOrString mapped as controller-gen maps them, descriptions in full.
func generate(names []string) (map[string]apiextensionsv1.JSONSchemaProps, error) {
	if len(names) == 0 {
		return nil, errors.New("usage: kubeschema <package path>.<Type> ...: no type named")
	}
	var paths []string
	for _, n := range names {
		pkg, _, ok := cut(n)
		if !ok {
			return nil, fmt.Errorf("%q is not <package path>.<Type>", n)
		}
		paths = append(paths, pkg)
	}
	roots, err := loader.LoadRoots(paths...)
	if err != nil {
		return nil, err
	}
	registry := &markers.Registry{}
	if err := crdmarkers.Register(registry); err != nil {
		return nil, err
	}
	parser := &crd.Parser{Collector: &markers.Collector{Registry: registry}, Checker: &loader.TypeChecker{}}
	crd.AddKnownTypes(parser)
	byPath := map[string]*loader.Package{}
	for _, root := range roots {
		parser.NeedPackage(root)
		byPath[root.PkgPath] = root
	}
	out := map[string]apiextensionsv1.JSONSchemaProps{}
	for _, n := range names {
		pkgPath, typeName, _ := cut(n)
		ident := crd.TypeIdent{Package: byPath[pkgPath], Name: typeName}
		if ident.Package == nil || parser.LookupType(ident.Package, typeName) == nil {
			return nil, fmt.Errorf("no type %s", n)
		}
		parser.NeedFlattenedSchemaFor(ident)
		out[n] = parser.FlattenedSchemata[ident]
	}
	// Type errors are expected: the checker only checks the nodes a
	// schema needs, as controller-gen's own run does (genall.Runtime.Run).
	if loader.PrintErrors(roots, packages.TypeError) {
		return nil, fmt.Errorf("the packages have errors")
	}
	return out, nil
}

// cut splits k8s.io/api/apps/v1.DeploymentStrategy at its last dot.
func cut(name string) (pkg, typ string, ok bool) {
	i := strings.LastIndex(name, ".")
	if i <= 0 || i == len(name)-1 || strings.Contains(name[i:], "/") {
		return "", "", false
	}
	return name[:i], name[i+1:], true
}
