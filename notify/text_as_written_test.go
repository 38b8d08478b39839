package notify

import (
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
