package notify

import (
	"encoding/json"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/taasky/taasky/negotiation"
)

// TestEmailShowsTextAsWritten: the HTML part keeps the line breaks and
// runs of spaces of a value the other side wrote (the subject_hash binds
// them): its cell is white-space: pre-wrap, so "10 units\n\nno   refunds"
// does not read as "10 units no refunds", other terms.
func TestEmailShowsTextAsWritten(t *testing.T) {
	const note = "10 units\n\nno   refunds"
	m := sample(KindRequest)
	m.Card.Options[0].Fields = append(m.Card.Options[0].Fields,
		negotiation.CardField{Name: "note", Label: "Note", Type: negotiation.TypeString, Text: note})
	_, p := render(t, m)
	doc, err := html.Parse(strings.NewReader(p.HTML))
	if err != nil {
		t.Fatal(err)
	}
	var cell *html.Node
	var find func(n *html.Node)
	find = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "td" && n.FirstChild != nil && n.FirstChild.Type == html.TextNode && n.FirstChild.Data == note {
			cell = n
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			find(c)
		}
	}
	find(doc)
	if cell == nil {
		t.Fatalf("no cell holds the note as written:\n%s", p.HTML)
	}
	for _, a := range cell.Attr {
		if a.Key == "style" && strings.Contains(a.Val, "white-space:pre-wrap") {
			return
		}
	}
	t.Errorf("the note's cell collapses its line breaks and spaces: %v", cell.Attr)
}

// TestEmailListsRepeatedValues: a field's several values are listed one
// a line in both parts, so that one value "logo; website" reads apart from
// two, "logo" and "website" (other terms, written alike once joined).
func TestEmailListsRepeatedValues(t *testing.T) {
	m := sample(KindRequest)
	m.Card.Options[0].Fields = append(m.Card.Options[0].Fields,
		negotiation.CardField{Name: "items", Label: "Deliverables", Type: negotiation.TypeString,
			Values: []negotiation.Value{{Text: "logo; website"}, {Text: "print\nand bind"}}, Text: "logo; website; print\nand bind"})
	_, p := render(t, m)
	if want := "  Deliverables: \n      - logo; website\n      - print\n        and bind\n"; !strings.Contains(strings.ReplaceAll(p.Text, "\r\n", "\n"), want) {
		t.Errorf("the text part does not list the values:\n%s", p.Text)
	}
	doc, err := html.Parse(strings.NewReader(p.HTML))
	if err != nil {
		t.Fatal(err)
	}
	var items []string
	var find func(n *html.Node)
	find = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "li" && n.FirstChild != nil {
			items = append(items, n.FirstChild.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			find(c)
		}
	}
	find(doc)
	if len(items) != 2 || items[0] != "logo; website" || items[1] != "print\nand bind" {
		t.Errorf("the HTML part lists %q", items)
	}
}

// TestPushQuotesTheirWords: on the push's one line, a value a party wrote
// is quoted, each value apart: "ok; Fee: 0.00 EUR" written as a note does
// not read as a field of its own beside (or instead of) the real fee.
func TestPushQuotesTheirWords(t *testing.T) {
	m := sample(KindRequest)
	note := negotiation.CardField{Name: "note", Label: "Note", Type: negotiation.TypeString,
		Values: []negotiation.Value{{Text: "ok; Fee: 0.00 EUR"}}, Text: "ok; Fee: 0.00 EUR"}
	m.Card.Options[0].Fields = []negotiation.CardField{note, m.Card.Options[0].Fields[1]}
	var p PushPayload
	if err := json.Unmarshal(Push(m), &p); err != nil {
		t.Fatal(err)
	}
	_, fields, _ := strings.Cut(p.Body, "\n")
	if want := `Note: "ok; Fee: 0.00 EUR"; Fee: 20.00 EUR`; fields != want {
		t.Errorf("push fields %q, want %q", fields, want)
	}
}

// TestPushShowsWordsAsWritten: a value a party wrote is quoted on the
// push's line with only its quotes and backslashes escaped: the spaces
// people type (a Japanese full-width space, the no-break spaces French
// writes before ":" and between thousands) and an emoji joined by
// U+200D read as written, not as "\u3000"; a character nobody sees
// (U+200B) is still shown as its escape, so that it hides nothing.
func TestPushShowsWordsAsWritten(t *testing.T) {
	for value, want := range map[string]string{
		"会議室\u3000A":                `"会議室` + "\u3000" + `A"`,
		"prix\u00a0: 10\u202f000 €": `"prix` + "\u00a0" + `: 10` + "\u202f" + `000 €"`,
		"👩\u200d💻 dev":              `"👩` + "\u200d" + `💻 dev"`,
		`say "hi" \o/`:              `"say \"hi\" \\o/"`,
		"a\u200bb":                  `"a\u200bb"`,
		// A joiner between letters hides nothing only in the scripts that
		// need one: Persian's non-joiner stays; "F\u200dee" is not "Fee".
		"F\u200dee":     `"F\u200dee"`,
		"Fe\u200cee":    `"Fe\u200cee"`,
		"می\u200cخواهم": `"می` + "\u200c" + `خواهم"`,
		"👩🏽\u200d💻 🏳\ufe0f\u200d🌈": `"👩🏽` + "\u200d" + `💻 🏳` + "\ufe0f\u200d" + `🌈"`,
		"\u200d💻": `"\u200d💻"`,
	} {
		m := sample(KindRequest)
		note := negotiation.CardField{Name: "note", Label: "Note", Type: negotiation.TypeString,
			Values: []negotiation.Value{{Text: value}}, Text: value}
		m.Card.Options[0].Fields = []negotiation.CardField{note}
		var p PushPayload
		if err := json.Unmarshal(Push(m), &p); err != nil {
			t.Fatal(err)
		}
		if _, fields, _ := strings.Cut(p.Body, "\n"); fields != "Note: "+want {
			t.Errorf("%q: push fields %q, want %q", value, fields, "Note: "+want)
		}
	}
}
