package test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/hooks/contract/hook"
)

// conditionsDoc is the one table of every condition type and reason.
const conditionsDoc = "../docs/conditions.md"

// TestConditionsDocMatchesTheCode: each kind's table in docs/conditions.md
// names every condition type and reason its hook's conditions.go defines
// (the constants named Cond... and Reason...), and names nothing else
// besides Ready's own. A reason added to the code without a row, or a row
// left behind by a renamed reason, fails here.
func TestConditionsDocMatchesTheCode(t *testing.T) {
	tables := conditionTables(t)
	ready := map[string]bool{hook.ConditionReady: true, hook.ReasonAllReady: true, hook.ReasonNotAllReady: true}
	for section, dir := range map[string]string{
		"Glance":        "../hooks/glance/model",
		"GlanceBackend": "../hooks/glancebackend",
		"ControlPlane":  "../hooks/controlplane",
	} {
		t.Run(section, func(t *testing.T) {
			code := conditionConstants(t, filepath.Join(dir, "conditions.go"))
			require.NotEmpty(t, code, "%s defines conditions", dir)
			doc := tables[section]
			require.NotEmpty(t, doc, "docs/conditions.md has a %q table", section)
			for value, name := range code {
				assert.True(t, doc[value], "%s = %q (%s/conditions.go) has no row in docs/conditions.md's %s table", name, value, dir, section)
			}
			for word := range doc {
				assert.True(t, code[word] != "" || ready[word], "docs/conditions.md's %s table names %q, which %s/conditions.go does not define", section, word, dir)
			}
		})
	}
}

// conditionTables reads the condition and reason columns of each table of
// docs/conditions.md, by the heading above it; the table of the
// reference's words is not one of the code's.
func conditionTables(t *testing.T) map[string]map[string]bool {
	t.Helper()
	raw, err := os.ReadFile(conditionsDoc)
	require.NoError(t, err)
	tables := map[string]map[string]bool{}
	section := ""
	for _, line := range strings.Split(string(raw), "\n") {
		if h, ok := strings.CutPrefix(line, "## "); ok {
			section = h
			continue
		}
		if !strings.HasPrefix(line, "| `") || section == "" {
			continue
		}
		cells := strings.Split(line, "|")
		if tables[section] == nil {
			tables[section] = map[string]bool{}
		}
		for i, cell := range cells[1:3] {
			word := strings.Trim(strings.TrimSpace(cell), "`")
			if i == 0 && strings.HasPrefix(word, "status.") {
				continue // status.backends[] holds reasons, it is no condition
			}
			tables[section][word] = true
		}
	}
	return tables
}

// conditionConstants maps the value of each Cond... and Reason... constant
// of a conditions.go to its name. A constant may be another's, in the file
// or in hooks/contract's hook, names or glancestatus package (the only
// ones a conditions.go borrows from).
func conditionConstants(t *testing.T, file string) map[string]string {
	t.Helper()
	values := constStrings(t, file)
	borrowed := map[string]map[string]string{
		"hook":         packageConsts(t, "../hooks/contract/hook"),
		"names":        packageConsts(t, "../hooks/contract/names"),
		"glancestatus": packageConsts(t, "../hooks/contract/glancestatus"),
	}
	out := map[string]string{}
	for name, expr := range values {
		if !strings.HasPrefix(name, "Cond") && !strings.HasPrefix(name, "Reason") {
			continue
		}
		v := resolve(expr, values, borrowed)
		require.NotEmpty(t, v, "%s: the value of %s is read", file, name)
		out[v] = name
	}
	return out
}

// resolve is a constant's string value: a literal, another constant of the
// file, or one of a borrowed package.
func resolve(expr ast.Expr, local map[string]ast.Expr, borrowed map[string]map[string]string) string {
	switch e := expr.(type) {
	case *ast.BasicLit:
		v, err := strconv.Unquote(e.Value)
		if err != nil {
			return ""
		}
		return v
	case *ast.Ident:
		if next, ok := local[e.Name]; ok {
			return resolve(next, local, borrowed)
		}
	case *ast.SelectorExpr:
		if pkg, ok := e.X.(*ast.Ident); ok {
			return borrowed[pkg.Name][e.Sel.Name]
		}
	}
	return ""
}

// packageConsts are the string constants written as literals in a package.
func packageConsts(t *testing.T, dir string) map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	require.NoError(t, err)
	out := map[string]string{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		for name, expr := range constStrings(t, f) {
			if lit, ok := expr.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				out[name], _ = strconv.Unquote(lit.Value)
			}
		}
	}
	return out
}

// constStrings are the constants of a file with one value each, by name.
func constStrings(t *testing.T, file string) map[string]ast.Expr {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	require.NoError(t, err)
	out := map[string]ast.Expr{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, n := range vs.Names {
				if i < len(vs.Values) {
					out[n.Name] = vs.Values[i]
				}
			}
		}
	}
	return out
}
