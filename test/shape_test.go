package test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Every function of the module keeps small enough to read in one sitting
// (docs/hooks.md, "Adding a feature"): at most 15 independent paths, 60
// lines and 5 parameters. A function that needs more is split along its
// seams: a new function, or a file of its own. The bound covers the whole
// tree, the test harnesses under test/ and the tools under hack/ as much as
// the hooks, with no exemptions. Only _test.go files are left out: a test
// function is a table of cases, and its length is the table's.
const (
	maxComplexity = 15
	maxLines      = 60
	maxParams     = 5
)

func TestFunctionsStaySmall(t *testing.T) {
	fset := token.NewFileSet()
	checked := 0
	// Functions read under each top-level directory, so that leaving one
	// out again fails here.
	under := map[string]int{}
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if skipShapeDir(path) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		n := checkShape(t, fset, path)
		checked += n
		rel, _ := filepath.Rel("..", path)
		under[strings.SplitN(filepath.ToSlash(rel), "/", 2)[0]] += n
		return nil
	})
	require.NoError(t, err)
	require.Greater(t, checked, 1000, "the module's functions were read")
	for _, dir := range []string{"hooks", "test", "hack"} {
		require.Positive(t, under[dir], "the functions under %s/ were read", dir)
	}
}

// skipShapeDir leaves out only what is not Go source of this module:
// testdata, vendor and hidden directories.
func skipShapeDir(path string) bool {
	rel, err := filepath.Rel("..", path)
	if err != nil || rel == "." {
		return false
	}
	base := filepath.Base(rel)
	return base == "testdata" || base == "vendor" || strings.HasPrefix(base, ".")
}

// checkShape reports each function of the file above a bound and returns
// how many it read.
func checkShape(t *testing.T, fset *token.FileSet, path string) int {
	t.Helper()
	f, err := parser.ParseFile(fset, path, nil, 0)
	require.NoError(t, err)
	name, _ := filepath.Rel("..", path)
	checked := 0
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		checked++
		at := fset.Position(fn.Pos())
		if c := complexity(fn.Body); c > maxComplexity {
			t.Errorf("%s:%d %s: cyclomatic complexity %d, at most %d", name, at.Line, fn.Name.Name, c, maxComplexity)
		}
		if n := fset.Position(fn.End()).Line - at.Line + 1; n > maxLines {
			t.Errorf("%s:%d %s: %d lines, at most %d", name, at.Line, fn.Name.Name, n, maxLines)
		}
		if n := fn.Type.Params.NumFields(); n > maxParams {
			t.Errorf("%s:%d %s: %d parameters, at most %d", name, at.Line, fn.Name.Name, n, maxParams)
		}
	}
	return checked
}

// complexity is McCabe's: one plus each branch and each short-circuit
// operator, as gocyclo counts them.
func complexity(body *ast.BlockStmt) int {
	c := 1
	ast.Inspect(body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt:
			c++
		case *ast.CaseClause:
			if x.List != nil {
				c++
			}
		case *ast.CommClause:
			if x.Comm != nil {
				c++
			}
		case *ast.BinaryExpr:
			if x.Op == token.LAND || x.Op == token.LOR {
				c++
			}
		}
		return true
	})
	return c
}
