package negotiation

import (
	"strings"
	"unicode/utf8"
)

// MaxTitle is the most characters a room's title may have.
const MaxTitle = 120

// CheckTitle applies the rule for a room's title, which the other side's
// human reads as it is: 1 to MaxTitle characters of text, not only
// spaces, one readable line, nothing built to look like something else
// (Deceptive). A room without a title passes none.
func CheckTitle(title string) error {
	if n := utf8.RuneCountInString(title); n > MaxTitle || strings.TrimSpace(title) == "" || !utf8.ValidString(title) {
		return inputErr("title", "rule.title_length", "1 to %d characters of text", MaxTitle)
	}
	if !ReadableLine(title) {
		return inputErr("title", "rule.title_line", "one line of readable text, without control characters or direction overrides")
	}
	if why := Deceptive(title); why != "" {
		return inputErr("title", "", "%s", why) // an agent's mistake: no words in the catalog
	}
	return nil
}
