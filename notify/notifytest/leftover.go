package notifytest

import (
	"regexp"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/net/html"
)

// Reads is what a reader of an HTML document reads or hears: each text
// node's text (a script's and a style's left out) and the attributes a
// browser shows or says (title, aria-label, placeholder, alt, a button's
// value, an optgroup's label, a data- attribute's words that a script
// shows), each with its whitespace collapsed.
func Reads(doc string) []string {
	root, err := html.Parse(strings.NewReader(doc))
	if err != nil {
		return []string{doc}
	}
	var out []string
	add := func(s string) {
		if s = strings.Join(strings.Fields(s), " "); s != "" {
			out = append(out, s)
		}
	}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		switch n.Type {
		case html.TextNode:
			add(n.Data)
		case html.ElementNode:
			if n.Data == "script" || n.Data == "style" {
				return
			}
			typ := ""
			for _, a := range n.Attr {
				if a.Key == "type" {
					typ = a.Val
				}
			}
			for _, a := range n.Attr {
				if strings.HasPrefix(a.Key, "data-") && strings.Contains(a.Val, " ") {
					add(a.Val) // words a script shows
				}
				switch a.Key {
				case "title", "aria-label", "placeholder", "alt", "aria-description", "aria-roledescription":
					add(a.Val)
				case "value": // a <button>'s is sent, not shown
					if n.Data == "input" && (typ == "submit" || typ == "button" || typ == "reset") {
						add(a.Val)
					}
				case "label":
					if n.Data == "optgroup" || n.Data == "option" || n.Data == "track" {
						add(a.Val)
					}
				case "content":
					if n.Data == "meta" && slices.ContainsFunc(n.Attr, func(b html.Attribute) bool {
						return b.Key == "name" && (b.Val == "description" || b.Val == "apple-mobile-web-app-title")
					}) {
						add(a.Val)
					}
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(root)
	return out
}

// Lines is a text's lines, each with its whitespace collapsed, blank ones
// left out.
func Lines(text string) []string {
	var out []string
	for _, l := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		if l = strings.Join(strings.Fields(l), " "); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// Leftovers is what a render in another language says in English: each
// of its pieces that is a piece of the English render too, and each run
// of three words the English render also has, once what is data (names,
// titles, addresses, a party's labels and values: data) and whatever is
// no word (numbers, links, punctuation) is taken out. allowed holds the
// pieces that are the same words in that language, each for a reason the
// caller keeps beside it.
func Leftovers(english, got, data []string, allowed map[string]string) []string {
	// The longest datum first: "Alpha Studio's agent" before "Alpha Studio".
	data = slices.Clone(data)
	slices.SortFunc(data, func(a, b string) int { return len(b) - len(a) })
	strip := func(s string) string {
		for _, d := range data {
			if d != "" {
				s = strings.ReplaceAll(s, d, " ")
			}
		}
		return machine.ReplaceAllString(s, " ")
	}
	en := map[string]bool{}
	runs := map[string]bool{}
	for _, p := range english {
		en[p] = true
		for _, r := range wordRuns(strip(p)) {
			runs[r] = true
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, p := range got {
		rest := strip(p)
		if seen[p] || allowed[p] != "" || allowed[strings.Join(strings.Fields(strings.Trim(rest, " :·–—-")), " ")] != "" {
			continue
		}
		seen[p] = true
		if !hasWord(rest) {
			continue
		}
		if en[p] {
			out = append(out, p)
			continue
		}
		for _, r := range wordRuns(rest) {
			if runs[r] {
				out = append(out, p+"  [«"+r+"»]")
				break
			}
		}
	}
	return out
}

// machine is what a page writes for a machine, or quotes from one: URLs,
// addresses, paths, IANA zone names, tokens, hashes, keys and names of
// parameters (a word with a digit or an underscore), events and
// catalog-like names (room.opened), webhook headers, a script's
// placeholders ({status}).
var machine = regexp.MustCompile(`https?://\S+|\S+@\S+\.\S+|/[a-z0-9_./-]+|\b[A-Z][A-Za-z_-]+(/[A-Za-z0-9_+-]+)+|` +
	`[^\s(),;:"“”„«»（）：]*[0-9_][^\s(),;:"“”„«»（）：]*|\b[a-z]+(\.[a-z_]+)+\b|\bwebhook-[a-z]+\b|\{[a-z_]+\}`)

// hasWord: a Latin letter's word of two letters or more is left.
func hasWord(s string) bool {
	n := 0
	for _, r := range s {
		if r < unicode.MaxASCII && unicode.IsLetter(r) {
			n++
			if n >= 2 {
				return true
			}
		} else {
			n = 0
		}
	}
	return false
}

// wordRuns are s's runs of two ASCII words in a row, of three letters or
// more each (lower case), but for two international names.
func wordRuns(s string) []string {
	words := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r < unicode.MaxASCII && (unicode.IsLetter(r) || r == '\''))
	})
	var out []string
	for i := 0; i+2 <= len(words); i++ {
		if len(words[i]) >= 3 && len(words[i+1]) >= 3 && !(international[words[i]] && international[words[i+1]]) {
			out = append(out, words[i]+" "+words[i+1])
		}
	}
	return out
}

// international are the names every language writes as English does:
// two of them in a row are no English sentence.
var international = map[string]bool{"mcp": true, "url": true, "urls": true, "http": true, "https": true, "kid": true, "typ": true,
	"json": true, "jws": true, "jwks": true, "eur": true, "utc": true, "tls": true, "api": true, "pkce": true, "oauth": true, "nope": true}

// EnglishDates finds moments written the English way: "Mon 7 Dec 2026",
// "7 Dec 2026", "Dec 7".
var EnglishDates = regexp.MustCompile(`\b(Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d|\b\d{1,2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\b|\b(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d`)
