package test

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/c5c3/glance-hooks/test/docsection"
)

// glanceHookFiles are the files of hooks/glance that are the hook's own,
// not a feature's: the Makefile's REQUEST_PATH_HOOK_FILES, which
// hooks/glance's TestRequestPathKnowsEveryFile keeps complete.
func glanceHookFiles(t *testing.T) map[string]bool {
	t.Helper()
	hook := map[string]bool{}
	for _, name := range docsection.MakeWords(t, filepath.Join("..", "Makefile"), "REQUEST_PATH_HOOK_FILES") {
		hook[name] = true
	}
	return hook
}

// fileFloorsExempt are the packages under hooks/ whose files may use each
// other both ways: the API types, where one CRD's parts (each spec part in
// its file) are fields of the whole spec and read it back for their
// defaults, as the types the CRD's schema nests do.
var fileFloorsExempt = map[string]bool{module + "/hooks/contract/api": true}

// TestHookFilesPointDown keeps the files inside each package of the hooks
// on floors too (docs/hooks.md, "Inside the Glance hook"): within a
// package, the files' uses of each other's names (functions, types,
// methods, fields) form no cycle, so every package reads from its lowest
// file up; and a feature's file in hooks/glance uses none of the hook's
// own files (sync.go, features.go, ...), which gather the features and so
// stand above every one of them. Go forbids cycles between packages; this
// holds the files to the same.
func TestHookFilesPointDown(t *testing.T) {
	hookFiles := glanceHookFiles(t)
	pkgs := fileGraphs(t, "./hooks/...")
	checked := 0
	for _, pkg := range pkgs {
		if fileFloorsExempt[pkg.path] {
			continue
		}
		checked++
		if cycle := pkg.cycle(); cycle != nil {
			t.Errorf("%s: its files use each other in a cycle: %s; move what they share to a lower file",
				pkg.path, pkg.describe(cycle))
		}
		if pkg.path == module+"/hooks/glance" {
			featuresUseNoHookFile(t, pkg, hookFiles)
		}
	}
	if checked < 20 {
		t.Fatalf("checked %d packages under hooks/; expected the hooks, the Glance hook's stages and the contract", checked)
	}
}

// featuresUseNoHookFile fails for every use of a name of the Glance hook's
// own files from a feature's file.
func featuresUseNoHookFile(t *testing.T, pkg fileGraph, hookFiles map[string]bool) {
	t.Helper()
	for _, from := range slices.Sorted(maps.Keys(pkg.uses)) {
		for _, to := range slices.Sorted(maps.Keys(pkg.uses[from])) {
			if names := pkg.uses[from][to]; !hookFiles[from] && hookFiles[to] {
				t.Errorf("hooks/glance/%s, a feature's file, uses %s of the hook's own %s; "+
					"what a feature needs lies below the hook (a stage, or the feature's own file)",
					from, strings.Join(names, ", "), to)
			}
		}
	}
}

// fileGraph is which file of one package uses which names declared in
// another file of it: uses[from][to] are the names, sorted.
type fileGraph struct {
	path string
	uses map[string]map[string][]string
}

// cycle returns the files of one cycle of uses, the first file again at
// the end, or nil when there is none; files are visited in name order, so
// the cycle named is the same on every run.
func (g fileGraph) cycle() []string {
	const (
		unseen = iota
		open
		done
	)
	state := map[string]int{}
	var stack []string
	var visit func(string) []string
	visit = func(file string) []string {
		state[file] = open
		stack = append(stack, file)
		for _, to := range slices.Sorted(maps.Keys(g.uses[file])) {
			switch state[to] {
			case open:
				return append(slices.Clone(stack[slices.Index(stack, to):]), to)
			case unseen:
				if c := visit(to); c != nil {
					return c
				}
			}
		}
		stack = stack[:len(stack)-1]
		state[file] = done
		return nil
	}
	for _, file := range slices.Sorted(maps.Keys(g.uses)) {
		if state[file] == unseen {
			if c := visit(file); c != nil {
				return c
			}
		}
	}
	return nil
}

// describe names a cycle's files and, for each step, the names used.
func (g fileGraph) describe(cycle []string) string {
	var steps []string
	for i := 0; i+1 < len(cycle); i++ {
		steps = append(steps, fmt.Sprintf("%s uses %s of %s", cycle[i], strings.Join(g.uses[cycle[i]][cycle[i+1]], ", "), cycle[i+1]))
	}
	return strings.Join(steps, "; ")
}

// fileGraphs type-checks the production files of the module's packages
// that pattern matches (against the compiled export data of what they
// import, which go list builds) and returns each package's uses between
// its files: package-level names, methods and struct fields, each counted
// as a use of the file that declares it.
func fileGraphs(t *testing.T, pattern string) []fileGraph {
	t.Helper()
	exports, own := exportData(t, pattern)
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok {
			return nil, fmt.Errorf("go list gave no export data for %s", path)
		}
		return os.Open(file)
	})
	var graphs []fileGraph
	for _, pkg := range own {
		graphs = append(graphs, fileGraphOf(t, fset, imp, pkg))
	}
	return graphs
}

// listedPackage is one package as go list names it.
type listedPackage struct {
	path, dir string
	files     []string
}

// exportData runs go list for pattern and its dependencies: the export
// data file of every package, by import path, and the packages pattern
// itself matches, with their production Go files.
func exportData(t *testing.T, pattern string) (map[string]string, []listedPackage) {
	t.Helper()
	cmd := exec.Command("go", "list", "-export", "-deps",
		"-f", "{{.ImportPath}}\t{{.Export}}\t{{.DepOnly}}\t{{.Dir}}\t{{join .GoFiles \" \"}}", pattern)
	cmd.Dir = ".."
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -export %s: %v", pattern, err)
	}
	exports := map[string]string{}
	var own []listedPackage
	for line := range strings.Lines(string(out)) {
		f := strings.Split(strings.TrimSuffix(line, "\n"), "\t")
		if len(f) != 5 {
			t.Fatalf("go list printed %q", line)
		}
		exports[f[0]] = f[1]
		if f[2] == "false" {
			own = append(own, listedPackage{f[0], f[3], strings.Fields(f[4])})
		}
	}
	return exports, own
}

// fileGraphOf type-checks one package and gathers its files' uses.
func fileGraphOf(t *testing.T, fset *token.FileSet, imp types.Importer, pkg listedPackage) fileGraph {
	t.Helper()
	var files []*ast.File
	for _, name := range pkg.files {
		f, err := parser.ParseFile(fset, filepath.Join(pkg.dir, name), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	checked, err := (&types.Config{Importer: imp}).Check(pkg.path, fset, files, info)
	if err != nil {
		t.Fatalf("type-checking %s: %v", pkg.path, err)
	}
	g := fileGraph{path: pkg.path, uses: map[string]map[string][]string{}}
	for id, obj := range info.Uses {
		if obj.Pkg() != checked || !declaredInPackage(obj, checked) {
			continue
		}
		from := filepath.Base(fset.Position(id.Pos()).Filename)
		to := filepath.Base(fset.Position(obj.Pos()).Filename)
		if from == to {
			continue
		}
		if g.uses[from] == nil {
			g.uses[from] = map[string][]string{}
		}
		if !slices.Contains(g.uses[from][to], obj.Name()) {
			g.uses[from][to] = append(g.uses[from][to], obj.Name())
		}
	}
	for _, uses := range g.uses {
		for _, names := range uses {
			sort.Strings(names)
		}
	}
	return g
}

// declaredInPackage reports whether obj belongs to the package as a
// whole, not to one function's body: a package-level name, a method or a
// struct field.
func declaredInPackage(obj types.Object, pkg *types.Package) bool {
	switch o := obj.(type) {
	case *types.Func:
		if o.Signature().Recv() != nil {
			return true
		}
	case *types.Var:
		if o.IsField() {
			return true
		}
	}
	return obj.Parent() == pkg.Scope()
}
