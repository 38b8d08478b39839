package locale

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/taasky/taasky/negotiation"
)

// protocolValues reads negotiation's source (and jobs', for the topics
// of a delivery, and app's, for the audit log's actions) for the constants of each protocol type, so that a value
// added there without words fails here.
func protocolValues(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	constants(t, "../../negotiation", out)
	constants(t, "../../jobs", out)
	constants(t, "../../app", out)
	for _, typ := range []string{"State", "ClosedReason", "Bound", "Verdict", "Result", "Topic", "Status", "Channel", "AuditAction"} {
		if len(out[typ]) < 2 {
			t.Fatalf("found %d constants of type %s: %v", len(out[typ]), typ, out[typ])
		}
	}
	return out
}

// constants adds the string constants declared with a type in the
// package in dir to out, by the type's name.
func constants(t *testing.T, dir string, out map[string][]string) {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(names) == 0 {
		t.Fatalf("%s: no Go files (%v)", dir, err)
	}
	fset := token.NewFileSet()
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			vs, ok := n.(*ast.ValueSpec)
			if !ok || vs.Type == nil {
				return true
			}
			typ, ok := vs.Type.(*ast.Ident)
			if !ok {
				return true
			}
			for _, v := range vs.Values {
				if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					s, _ := strconv.Unquote(lit.Value)
					out[typ.Name] = append(out[typ.Name], s)
				}
			}
			return true
		})
	}
}

// TestEveryProtocolValueHasWords: each state, close reason, bound and
// verdict has its own text, and each verdict a human confirms has all of
// a confirmation's words.
func TestEveryProtocolValueHasWords(t *testing.T) {
	vals := protocolValues(t)
	prefix := map[string]string{"State": "state.", "ClosedReason": "closed.", "Bound": "bound.", "Verdict": "verdict.", "Result": "result.", "Topic": "topic.",
		"Status": "status.", "Channel": "channel.", "AuditAction": "audit."}
	for typ, p := range prefix {
		for _, v := range vals[typ] {
			if !Has(Key(p + v)) {
				t.Errorf("the %s %q has no words: add %q to english.go", typ, v, p+v)
			}
		}
	}
	human := []negotiation.Verdict{negotiation.VerdictApprove, negotiation.VerdictReject, negotiation.VerdictCancel, negotiation.VerdictPreapprove}
	for _, v := range human {
		for _, k := range []string{"ask.", "ask.question.", "ask.button."} {
			if !Has(Key(k + string(v))) {
				t.Errorf("the human verdict %q lacks %q", v, k+string(v))
			}
		}
		if v != negotiation.VerdictApprove && !Has(Key("ask.after."+string(v))) {
			t.Errorf("the human verdict %q lacks ask.after.%s", v, v)
		}
	}
	for _, v := range vals["Verdict"] {
		if Has(Key("ask."+v)) && !slices.Contains(human, negotiation.Verdict(v)) {
			t.Errorf("ask.%s: the verdict %q is not one a human confirms", v, v)
		}
	}
}

// Keys are used from Go code and templates: literally, or by the
// accessors from a protocol value.
var (
	keyUse    = regexp.MustCompile(`(?:\.T\(|\bt |\(t )"([a-z_]+(?:\.[a-z_]+)+)"`)
	derivedBy = []string{"state.", "closed.", "bound.", "verdict.", "ask.", "result.", "topic.", "role.", "note.",
		"value.", "channel.", "status.", "region.", "audit."}
)

// catalogFiles hold the languages' texts, one file each.
var catalogFiles = []string{"english.go", "german.go", "french.go", "spanish.go", "japanese.go"}

// TestEveryKeyIsUsedAndEveryUseIsAKey walks the module: a key that no
// code or template uses is dead text, and a key used but missing from the
// catalog would show as its name.
func TestEveryKeyIsUsedAndEveryUseIsAKey(t *testing.T) {
	used := map[Key]string{}
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && path != "../.." {
			return filepath.SkipDir
		}
		ext := filepath.Ext(path)
		inLocale := filepath.Base(filepath.Dir(path)) == "locale"
		if d.IsDir() || (ext != ".go" && ext != ".html" && ext != ".tmpl") ||
			(inLocale && (strings.HasSuffix(path, "_test.go") || slices.Contains(catalogFiles, filepath.Base(path)))) {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range keyUse.FindAllSubmatch(b, -1) {
			used[Key(m[1])] = path
		}
		for k := range englishText {
			if strings.Contains(string(b), `"`+string(k)+`"`) {
				used[k] = path
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(used) < 20 {
		t.Fatalf("found %d uses of keys: the walk missed the code", len(used))
	}
	for k, path := range used {
		if !Has(k) {
			t.Errorf("%s uses %q, which the catalog lacks", path, k)
		}
	}
	for k := range englishText {
		if _, ok := used[k]; ok || slices.ContainsFunc(derivedBy, func(p string) bool { return strings.HasPrefix(string(k), p) }) {
			continue
		}
		t.Errorf("%q is in the catalog but nothing uses it", k)
	}
}

func TestWords(t *testing.T) {
	p := English()
	if NewPrinter("de-CH, fr;q=0.8") == nil || NewPrinter("").T("turn.you") != "your turn" || NewPrinter("xx-bogus").T("turn.you") != "your turn" || NewPrinter("de-CH, fr;q=0.8").Lang() != "de" || NewPrinter("", "it", "fr-CA").Lang() != "fr" || NewPrinter("de_DE").Lang() != "de" {
		t.Error("a language the catalog lacks does not fall back to English")
	}
	paris, _ := time.LoadLocation("Europe/Paris")
	at := time.Date(2026, 10, 26, 10, 0, 0, 0, time.UTC)
	for _, c := range []struct{ got, want string }{
		{p.State(negotiation.StateAwaiting, ""), "negotiating"},
		{p.State(negotiation.StateClosed, negotiation.ClosedCancelled), "closed (one side withdrew)"},
		{p.State("frozen", ""), "frozen"},
		{p.ClosedReason(negotiation.ClosedExpired), "nobody answered the invitation within 72 hours"},
		{p.ClosedReason("vanished"), "vanished"},
		{p.Outside([]negotiation.Bound{negotiation.BoundMax, negotiation.BoundEquals}), "outside your limits: above your maximum, not the value you require"},
		{p.Verdict(negotiation.VerdictCancel), "withdrew"},
		{p.Ask(negotiation.VerdictPreapprove), "accept any of these options"},
		{p.AskAfter(negotiation.VerdictApprove, nil), ""},
		{p.AskAfter(negotiation.VerdictPreapprove, nil), "The other side picks one, and the room is agreed at once."},
		{p.AskAfter(negotiation.VerdictPreapprove, &negotiation.Card{Agrees: true}), ""}, // the card says it
		{p.T("ask.heading", p.Ask(negotiation.VerdictApprove)), "Your agent asks you to approve these terms"},
		{p.T("result.applied_verdict", p.Verdict(negotiation.VerdictApprove)), "Done: you approved."},
		{p.T("refusal.expired", 72), "This invitation has expired: nobody answered it within 72 hours."},
		{p.T("refusal.expired", 1), "This invitation has expired: nobody answered it within 1 hour."},
		{p.T("human.title", `Q4 "board"`), `Negotiation: "Q4 \"board\"" (the inviter's words).`},
		{p.Turn(nil), "nobody's turn"},
		{p.Result(negotiation.ResultApplied, "", ""), "Done: your answer was applied."},
		{p.Result(negotiation.ResultApplied, negotiation.VerdictCancel, ""), "Done: you withdrew."},
		{p.Result(negotiation.ResultVoid, negotiation.VerdictApprove, "the terms changed"), "Your answer applied to nothing: the terms changed."},
		{p.Result("pending", negotiation.VerdictApprove, ""), "Still waiting for your answer."},
		{p.Option(1, 3), "Option 2 of 3"},
		{p.NoDeal([]string{"Fee", "Room"}), "No deal is possible on Fee, Room: your limits and theirs cannot both be met (neither side's numbers are shown)."},
		{p.NoDealNote(negotiation.CardNote{Label: "Fee", Optional: true}, negotiation.CardNote{Label: "Room", Optional: true}),
			"No deal is possible on Fee, Room: your limits and theirs cannot both be met (neither side's numbers are shown). Terms that leave out Fee, Room are not held to these limits and can still be agreed."},
		{p.NoDealNote(negotiation.CardNote{Label: "Fee", Optional: true}, negotiation.CardNote{Label: "Room"}),
			"No deal is possible on Fee, Room: your limits and theirs cannot both be met (neither side's numbers are shown)."},
		{p.Until(0), "now"},
		{p.Until(time.Minute), "in about 1 minute"},
		{p.Until(60 * time.Minute), "in about 60 minutes"},
		{p.Until(5 * time.Hour), "in about 5 hours"},
		{p.Until(72 * time.Hour), "in about 3 days"},
		{p.Left(-time.Second), "passed"},
		{p.Left(59*time.Minute + 30*time.Second), "60 min left"},
		{p.Left(2*time.Hour + 5*time.Minute), "2 h 05 min left"},
		{p.Left(49 * time.Hour), "2 days left"},
		{p.Moment(at, paris), "Mon 26 Oct 2026, 11:00 (Europe/Paris)"},
		{p.Moment(at, nil), "Mon 26 Oct 2026, 10:00 (UTC)"},
		{p.Moment(at, time.FixedZone("", 3600)), "Mon 26 Oct 2026, 11:00 (UTC+01:00)"},
		{p.Moment(time.Time{}, paris), ""},
		{p.T("no.such_key"), "no.such_key"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
