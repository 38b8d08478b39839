package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestRequestLinesCarryTheirID: every line a handler logs about its
// request is logged with the request's context (slog's *Context
// methods), which is what adds its request_id (fiberhttp.LogRequestID).
// Before, the OAuth server's failures (a client's registration, a revoke
// or a token request the database failed), the resource metadata's, and
// the dashboard's sign-in and live-access lines were logged without it:
// the operator could not go from the id a client or the proxy kept to
// the line. A function that has the request (*fiber.Ctx, *http.Request)
// and logs with Debug, Info, Warn or Error is such a line.
func TestRequestLinesCarryTheirID(t *testing.T) {
	fset := token.NewFileSet()
	var bad []string
	for _, dir := range []string{"../../dashboard", "../../oauthserver", "../../mcpserver", "."} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, name, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, decl := range f.Decls {
				fn, ok := decl.(*ast.FuncDecl)
				if !ok || fn.Body == nil || !hasRequest(fn.Type.Params) {
					continue
				}
				ast.Inspect(fn.Body, func(n ast.Node) bool {
					call, ok := n.(*ast.CallExpr)
					if !ok {
						return true
					}
					sel, ok := call.Fun.(*ast.SelectorExpr)
					if !ok {
						return true
					}
					switch sel.Sel.Name {
					case "Debug", "Info", "Warn", "Error":
					default:
						return true
					}
					if isLogger(sel.X) {
						bad = append(bad, fset.Position(call.Pos()).String()+" in "+fn.Name.Name)
					}
					return true
				})
			}
		}
	}
	if len(bad) > 0 {
		t.Errorf("lines logged about a request without its context (no request_id):\n%s", strings.Join(bad, "\n"))
	}
}

// hasRequest says whether a function's parameters hold its request.
func hasRequest(params *ast.FieldList) bool {
	for _, p := range params.List {
		star, ok := p.Type.(*ast.StarExpr)
		if !ok {
			continue
		}
		if sel, ok := star.X.(*ast.SelectorExpr); ok {
			if x, ok := sel.X.(*ast.Ident); ok && (x.Name == "fiber" && sel.Sel.Name == "Ctx" || x.Name == "http" && sel.Sel.Name == "Request") {
				return true
			}
		}
	}
	return false
}

// isLogger says whether x names a logger: log, d.log, s.log, h.log.
func isLogger(x ast.Expr) bool {
	switch x := x.(type) {
	case *ast.Ident:
		return x.Name == "log"
	case *ast.SelectorExpr:
		return x.Sel.Name == "log" || x.Sel.Name == "Log"
	}
	return false
}
