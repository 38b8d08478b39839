package locale

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/taasky/taasky/negotiation"
)

// refusalMakers are the functions that make a refusal with words, by
// package: the position of the key among their arguments, and whether the
// English text (a format) follows it.
var refusalMakers = map[string]map[string]int{
	"negotiation": {"termsErr": 1, "inputErr": 1, "ruleErr": 2, "refused": 0},
	"app":         {"refuse": 1, "notFound": 1},
	"oauthserver": {"app.Refuse": 1, "bad": 0},
}

// TestEveryRefusalKeyIsInTheCatalog reads negotiation's and app's code:
// every refusal made with words names its key literally, the catalog has
// it (so every language has it: TestEveryCatalogHasEnglishKeys), and its
// English text is the refusal's format word for word, so that Message and
// the catalog's English never part. Keys written as data (app's
// fieldKeys) and the dashboard's own must be in the catalog too.
func TestEveryRefusalKeyIsInTheCatalog(t *testing.T) {
	keyLike := regexp.MustCompile(`^(rule|error|form)\.[a-z_]+$`)
	var calls int
	keyless := map[string]int{}
	for _, pkg := range []string{"negotiation", "app", "dashboard", "dashboard/form", "oauthserver"} {
		files, _ := filepath.Glob(filepath.Join("../..", pkg, "*.go"))
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					if s, _ := strconv.Unquote(lit.Value); keyLike.MatchString(s) && !Has(Key(s)) {
						t.Errorf("%s: %q looks like a key the catalog lacks", name, s)
					}
				}
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				var fn ast.Ident
				switch f := call.Fun.(type) {
				case *ast.Ident:
					fn = *f
				case *ast.SelectorExpr: // app.Refuse, outside app
					if x, ok := f.X.(*ast.Ident); ok {
						fn.Name = x.Name + "." + f.Sel.Name
					}
				default:
					return true
				}
				at, ok := refusalMakers[pkg][fn.Name]
				if !ok || len(call.Args) < at+2 {
					return true
				}
				calls++
				keyLit, ok := call.Args[at].(*ast.BasicLit)
				if !ok {
					if id, isIdent := call.Args[at].(*ast.Ident); !isIdent || id.Name != "key" {
						t.Errorf("%s: %s's key is computed; write it out, so that this test sees it", name, fn.Name)
					}
					return true
				}
				key, _ := strconv.Unquote(keyLit.Value)
				if key == "" {
					keyless[pkg]++
					return true
				}
				if !Has(Key(key)) {
					t.Errorf("%s: %q is not in the catalog", name, key)
					return true
				}
				// A count's English is plural(n, one, many): each form
				// against the catalog's, for 1 and for more.
				forms, ones := []ast.Expr{call.Args[at+1]}, []bool{false}
				if p, isCall := call.Args[at+1].(*ast.CallExpr); isCall && len(p.Args) == 3 {
					if id, isIdent := p.Fun.(*ast.Ident); isIdent && id.Name == "plural" {
						forms, ones = p.Args[1:], []bool{true, false}
					}
				}
				for i, form := range forms {
					format, ok := literal(form)
					if !ok {
						t.Errorf("%s: %s %q: its English is no literal", name, fn.Name, key)
						return true
					}
					args := sampleArgs(format)
					if ones[i] {
						args[0] = 1
					}
					if code, english := fmt.Sprintf(format, args...), English().T(Key(key), args...); code != english {
						t.Errorf("%s: %q says %q in the code, %q in english.go", name, key, code, english)
					}
				}
				return true
			})
		}
	}
	if calls < 150 {
		t.Fatalf("read %d refusals: the walk missed the code", calls)
	}
	// Without words: in negotiation a title's lookalike, an unknown state
	// and an error that is no protocol refusal; in app the users, tokens
	// and operator's lookups no page shows as a refusal (the last: taasky
	// user relink's unknown address).
	for pkg, most := range map[string]int{"negotiation": 3, "app": 9} {
		if keyless[pkg] > most {
			t.Errorf("%s: %d refusals without words, at most %d: give a person's refusal a key", pkg, keyless[pkg], most)
		}
	}
}

// literal is a string literal, or a concatenation of them.
func literal(e ast.Expr) (string, bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		s, err := strconv.Unquote(e.Value)
		return s, err == nil
	case *ast.BinaryExpr:
		a, ok1 := literal(e.X)
		b, ok2 := literal(e.Y)
		return a + b, ok1 && ok2
	}
	return "", false
}

// sampleArgs are values for a format's verbs, each different: texts for
// %s and %q, small numbers (which no language groups) for %d.
func sampleArgs(format string) []any {
	var args []any
	for i, v := range regexp.MustCompile(`%[sdqvt]`).FindAllString(format, -1) {
		switch v {
		case "%d":
			args = append(args, i+2)
		case "%t":
			args = append(args, i%2 == 0)
		default:
			args = append(args, "value"+strconv.Itoa(i))
		}
	}
	return args
}

// TestVectorRefusalsInEveryLanguage reads the refusals of the protocol's
// vectors with their words (negotiation/testdata/refusals.golden.json,
// which negotiation's TestRefusalWords writes): in English each is its
// message word for word (numbers aside, which the catalog groups for
// reading: 262,144); in every language each is written whole, with every
// value the sender gave shown as it was given.
func TestVectorRefusalsInEveryLanguage(t *testing.T) {
	b, err := os.ReadFile("../../negotiation/testdata/refusals.golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var refusals []struct {
		Message string `json:"message"`
		At      string `json:"at"`
		Key     string `json:"key"`
		Args    []any  `json:"args"`
	}
	if err := json.Unmarshal(b, &refusals); err != nil {
		t.Fatal(err)
	}
	grouped := regexp.MustCompile(`(\d),(\d{3})`)
	var checked int
	for _, r := range refusals {
		if r.Key == "" {
			continue
		}
		for i, a := range r.Args {
			if f, ok := a.(float64); ok && f == float64(int64(f)) {
				r.Args[i] = int64(f)
			}
		}
		w := negotiation.Words{At: r.At, Key: r.Key, Args: r.Args}
		got := English().Refusal(r.Message, w)
		for grouped.MatchString(got) {
			got = grouped.ReplaceAllString(got, "$1$2")
		}
		if got != r.Message {
			t.Errorf("%s in English: %q, the protocol says %q", r.Key, got, r.Message)
		}
		for _, l := range languages {
			said := NewPrinter(l.Tag).Refusal(r.Message, w)
			if strings.Contains(said, "%!") || said == r.Message && l.Tag != "en" && r.Key != "rule.json" {
				t.Errorf("%s %s: %q", l.Tag, r.Key, said)
			}
			for _, a := range r.Args {
				if s, ok := a.(string); ok && !strings.Contains(said, s) && !strings.Contains(said, strconv.Quote(s)) {
					t.Errorf("%s %s: %q leaves out the value %q", l.Tag, r.Key, said, s)
				}
			}
		}
		checked++
	}
	if checked < 60 {
		t.Fatalf("checked %d refusals: the golden file lost them", checked)
	}
}
