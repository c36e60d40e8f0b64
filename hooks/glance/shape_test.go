package glance

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The Glance hook keeps each function small enough to read in one sitting
// (docs/hooks.md, "Adding a feature"): at most 15 independent paths, 60
// lines and 5 parameters. A feature that needs more is a new function or a
// file of its own. golangci-lint's gocyclo holds the rest of the code to 20.
const (
	maxComplexity = 15
	maxLines      = 60
	maxParams     = 5
)

func TestFunctionsStaySmall(t *testing.T) {
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err)
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
	}
	require.Greater(t, checked, 100, "the hook's functions were read")
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
