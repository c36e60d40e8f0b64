package test

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/c5c3/glance-hooks"

// rawJSON is the fast JSON decoder: how a request's bytes become values,
// an implementation detail of the request contract, which is the one
// package under hooks/ that may import it.
const rawJSON = module + "/internal/rawjson"

// rawJSONImporters are the packages under hooks/ allowed to import
// rawJSON, as directories below the module root.
var rawJSONImporters = []string{"hooks/contract/metacontroller"}

// TestHookPackagesStayPure keeps the README's promise about the layers:
// the packages under hooks/ (pure hooks and their shared contract) touch no
// transport, no API client, and nothing of internal/ or cmd/, but for the
// request contract's fast decoder: hooks/contract/metacontroller reads the
// request's bytes, and every hook reads values through it.
func TestHookPackagesStayPure(t *testing.T) {
	forbidden := []string{"net/http", "github.com/labstack/echo", "k8s.io/client-go", module + "/internal/", module + "/cmd/"}
	pkgs := hookPackages(t)
	for _, pkg := range pkgs {
		for _, imp := range pkg.imports {
			if imp == rawJSON {
				if !slices.Contains(rawJSONImporters, pkg.dir) {
					t.Errorf("%s imports %s: reading a request's bytes belongs in hooks/contract/metacontroller, "+
						"behind a typed function the hook calls (docs/hooks.md, Where things live)", pkg.dir, imp)
				}
				continue
			}
			if imported(imp, forbidden) {
				t.Errorf("%s imports %s: hook packages are pure (docs/hooks.md, Where things live)", pkg.dir, imp)
			}
		}
	}
	if len(pkgs) < 10 {
		t.Fatalf("found %d packages under hooks/, expected the hooks and their contract", len(pkgs))
	}
}

// modulePackage is a package of the module: its directory below the module
// root and the imports of its production files.
type modulePackage struct {
	dir     string
	imports []string
}

// hookPackages are the packages under hooks/, in directory order.
func hookPackages(t *testing.T) []modulePackage {
	t.Helper()
	return packagesUnder(t, "hooks")
}

// packagesUnder are the packages of this module in the directory top below
// the module root, in directory order, with the imports of their
// production files; nested modules and testdata are not this module's.
func packagesUnder(t *testing.T, top string) []modulePackage {
	t.Helper()
	var pkgs []modulePackage
	root := filepath.Join("..", top)
	err := filepath.WalkDir(root, func(dir string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.SkipDir
		}
		pkg, err := build.ImportDir(dir, 0)
		if _, none := err.(*build.NoGoError); none {
			return nil
		}
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(dir, ".."+string(filepath.Separator)))
		pkgs = append(pkgs, modulePackage{rel, pkg.Imports})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// TestReasonsLiveInConditions keeps each hook package's condition types and
// reasons in its conditions.go, where a reader looks them up, each string
// defined once: a second constant for a reason another one spells already
// is an alias of it (ReasonInvalidSpec = hook.ReasonInvalidSpec), not a
// second literal.
func TestReasonsLiveInConditions(t *testing.T) {
	for _, pkg := range []string{"glance", "glance/model", "glancebackend", "controlplane"} {
		dir := filepath.Join("..", "hooks", pkg)
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		literals := map[string]string{}
		for _, path := range files {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, decl := range f.Decls {
				gen, ok := decl.(*ast.GenDecl)
				if !ok || gen.Tok != token.CONST {
					continue
				}
				for _, spec := range gen.Specs {
					for i, name := range spec.(*ast.ValueSpec).Names {
						if !strings.HasPrefix(name.Name, "Reason") && !strings.HasPrefix(name.Name, "Cond") {
							continue
						}
						if filepath.Base(path) != "conditions.go" {
							t.Errorf("%s: %s belongs in %s", path, name.Name, filepath.Join(dir, "conditions.go"))
						}
						values := spec.(*ast.ValueSpec).Values
						if i >= len(values) {
							continue
						}
						lit, ok := values[i].(*ast.BasicLit)
						if !ok {
							continue
						}
						if other, dup := literals[lit.Value]; dup && !strings.HasPrefix(name.Name, "Cond") && !strings.HasPrefix(other, "Cond") {
							t.Errorf("hooks/%s: %s and %s both spell %s; make one an alias of the other", pkg, other, name.Name, lit.Value)
						}
						literals[lit.Value] = name.Name
					}
				}
			}
		}
	}
}

// TestRawJSONStaysPure keeps the fast decoder a leaf the request contract
// can stand on: it imports nothing of the module and nothing that reaches
// the network, the operating system or a transport.
func TestRawJSONStaysPure(t *testing.T) {
	pkg, err := build.ImportDir(filepath.Join("..", "internal", "rawjson"), 0)
	if err != nil {
		t.Fatal(err)
	}
	forbidden := []string{module + "/", "net", "os", "syscall", "io/fs", "github.com/labstack/echo", "k8s.io/client-go"}
	for _, imp := range pkg.Imports {
		if imported(imp, forbidden) {
			t.Errorf("internal/rawjson imports %s: it reads bytes into values and nothing else", imp)
		}
	}
	if len(pkg.Imports) == 0 {
		t.Fatal("internal/rawjson lists no imports: is it still there?")
	}
}

// imported reports whether the import path imp is one of the packages, or
// below one of them: "net" forbids "net" and "net/http", not "netip".
func imported(imp string, packages []string) bool {
	for _, p := range packages {
		p = strings.TrimSuffix(p, "/")
		if imp == p || strings.HasPrefix(imp, p+"/") {
			return true
		}
	}
	return false
}

// hookFloors are the floors of the packages under hooks/, lowest first, by
// directory (the longest prefix decides): the shared contract; the Glance
// hook's stages, each a package on a floor of its own, in the order a sync
// runs them (the store's state machine lowest, then model, the values
// they share); the hooks that answer a kind, side by side, with the Glance
// hook's own package on top of its stages (the ControlPlane hook reads its
// Glance's status through hooks/contract/glancestatus, not through the
// Glance hook); admission. A package imports only from floors below its
// own, so a stage never reaches up to one that runs after it; the
// contract's packages import one another, which Go keeps free of cycles.
// A package under hooks/glance/ that is not listed is on no floor and fails.
var hookFloors = []struct {
	dir   string
	floor int
}{
	{"hooks/contract/", 0},
	{"hooks/glance/storestate", 1},
	{"hooks/glance/model", 2},
	{"hooks/glance/observe", 3},
	{"hooks/glance/decide", 4},
	{"hooks/glance/render", 5},
	{"hooks/glance/report", 6},
	{"hooks/glance", 7},
	{"hooks/glancebackend", 7},
	{"hooks/controlplane", 7},
	{"hooks/admission", 8},
}

// floorOf is the floor of a package directory under hooks/, -1 when no
// floor names it.
func floorOf(dir string) int {
	best, floor := "", -1
	for _, f := range hookFloors {
		match := f.dir == dir || strings.HasSuffix(f.dir, "/") && strings.HasPrefix(dir, f.dir)
		if match && len(f.dir) > len(best) {
			best, floor = f.dir, f.floor
		}
	}
	return floor
}

// TestHookFloorsPointDown keeps every import between the packages under
// hooks/ pointing down a floor (docs/hooks.md, Where things live), so a
// package never reaches up to a caller: a hook's inner packages never
// import the hook, and nothing outside hooks/glance imports its inner
// packages.
func TestHookFloorsPointDown(t *testing.T) {
	checked := 0
	for _, pkg := range hookPackages(t) {
		rel := pkg.dir
		from := floorOf(rel)
		if from < 0 {
			t.Errorf("%s is on no floor: add it to hookFloors", rel)
			continue
		}
		for _, imp := range pkg.imports {
			target, ok := strings.CutPrefix(imp, module+"/")
			if !ok || !strings.HasPrefix(target, "hooks/") {
				continue
			}
			checked++
			to := floorOf(target)
			if to > from || to == from && from != 0 {
				t.Errorf("%s (floor %d) imports %s (floor %d): imports point down a floor", rel, from, target, to)
			}
			if strings.HasPrefix(target, "hooks/glance/") && rel != "hooks/glance" && !strings.HasPrefix(rel, "hooks/glance/") {
				t.Errorf("%s imports %s: the Glance hook's inner packages are its own", rel, target)
			}
		}
	}
	if checked < 20 {
		t.Fatalf("checked %d imports between hook packages; expected the contract's many", checked)
	}
}

// moduleFloors are the module's layers by top-level directory, lowest
// first (docs/hooks.md, Where things live): the CRDs; internal/, what lies
// below the hooks (the fast decoder, build stamps, credential making, the
// image writer, the field reference generator); the hooks; beside each
// other above them, the service's transport and the simulation; the
// command; the tests and build tools. A production file imports only from
// a lower floor or from its own directory. Test files are left out: a test
// sits above what it tests (internal/rawjson's tests decode the API types,
// a hook's tests use test/testcert), and nothing is built from it.
var moduleFloors = map[string]int{
	"schemas":   0,
	"internal":  1,
	"hooks":     2,
	"transport": 3,
	"simulate":  3,
	"cmd":       4,
	"test":      5,
	"hack":      5,
}

// layerProblem says why the package in directory dir may not import the
// package imp (both below the module root), or "" when it may.
func layerProblem(dir, imp string) string {
	from, _, _ := strings.Cut(dir, "/")
	to, _, _ := strings.Cut(imp, "/")
	fromFloor, fromOK := moduleFloors[from]
	toFloor, toOK := moduleFloors[to]
	switch {
	case !fromOK:
		return fmt.Sprintf("%s is on no floor: add %s/ to moduleFloors and to docs/hooks.md", dir, from)
	case !toOK:
		return fmt.Sprintf("%s imports %s, which is on no floor: add %s/ to moduleFloors", dir, imp, to)
	case from == to:
		return ""
	case toFloor == fromFloor:
		return fmt.Sprintf("%s imports %s: %s/ and %s/ stand beside each other on floor %d; "+
			"what both need belongs on a lower floor", dir, imp, from, to, fromFloor)
	case toFloor > fromFloor:
		return fmt.Sprintf("%s (%s/, floor %d) imports %s (%s/, floor %d): imports point down; "+
			"internal/ holds only what lies below the hooks, and the hooks import nothing above them",
			dir, from, fromFloor, imp, to, toFloor)
	}
	return ""
}

func TestLayerProblem(t *testing.T) {
	cases := []struct {
		dir, imp, why string
		refused       bool
	}{
		{"internal/rawjson", "hooks/contract/api", "internal/ lies below every hook package, the contract too", true},
		{"internal/crdref", "hooks/glance", "internal/ lies below the hooks", true},
		{"internal/crdref", "schemas", "the reference generator reads the CRDs, one floor down", false},
		{"internal/credentials", "internal/rawjson", "internal/'s packages may use one another", false},
		{"hooks/contract/metacontroller", "internal/rawjson", "the hooks stand on internal/", false},
		{"hooks/glance", "transport/server", "a hook may not reach the transport that calls it", true},
		{"hooks/contract/api", "simulate/chain", "a hook may not reach the simulation that runs it", true},
		{"hooks/admission", "cmd/glance-hooks/probe", "a hook may not reach a command", true},
		{"hooks/glance", "test/testcert", "test helpers are for test files, not hook code", true},
		{"transport/server", "simulate/chain", "the transport and the simulation stand beside each other", true},
		{"simulate/render", "transport/server", "the simulation runs the hooks without the transport", true},
		{"transport/service", "transport/server", "a directory's packages may use one another", false},
		{"cmd/glance-hooks", "transport/service", "the command wires the transport", false},
		{"transport/server", "cmd/glance-hooks/keystone", "the transport may not reach a command", true},
		{"tools/x", "hooks/glance", "a new top-level directory must be given a floor", true},
		{"cmd/glance-hooks", "tools/x", "nor may anything import one without a floor", true},
	}
	for _, c := range cases {
		problem := layerProblem(c.dir, c.imp)
		if (problem != "") != c.refused {
			t.Errorf("%s -> %s: refused %t, want %t (%s); problem %q", c.dir, c.imp, problem != "", c.refused, c.why, problem)
		}
	}
}

// TestModuleLayersPointDown runs layerProblem over every import of every
// production file of the module.
func TestModuleLayersPointDown(t *testing.T) {
	entries, err := os.ReadDir("..")
	if err != nil {
		t.Fatal(err)
	}
	checked, floors := 0, map[string]bool{}
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		for _, pkg := range packagesUnder(t, e.Name()) {
			floors[e.Name()] = true
			for _, imp := range pkg.imports {
				target, ok := strings.CutPrefix(imp, module+"/")
				if !ok {
					continue
				}
				checked++
				if problem := layerProblem(pkg.dir, target); problem != "" {
					t.Error(problem)
				}
			}
		}
	}
	for dir := range moduleFloors {
		if !floors[dir] {
			t.Errorf("moduleFloors names %s/, which holds no package", dir)
		}
	}
	if checked < 100 {
		t.Fatalf("checked %d imports inside the module; expected every layer's", checked)
	}
}

// testHelpers are the packages under test/ that tests of every floor use
// (hooks/glance's tests make certificates with test/testcert).
var testHelpers = []string{"test/docsection", "test/testbin", "test/testcert", "test/testlog"}

// TestTestHelpersAreLeaves keeps a hook's unit test from building the
// layers above it through a helper: the helpers import nothing of the
// module.
func TestTestHelpersAreLeaves(t *testing.T) {
	for _, dir := range testHelpers {
		pkg, err := build.ImportDir(filepath.Join("..", dir), 0)
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		for _, imp := range pkg.Imports {
			if strings.HasPrefix(imp, module+"/") {
				t.Errorf("%s imports %s: a test helper imports nothing of the module, so any floor's tests can use it", dir, imp)
			}
		}
	}
}
