package negotiation

import "testing"

// TestTitleVectors plays vectors/titles.json: CheckTitle's verdict on each
// title, word for word.
func TestTitleVectors(t *testing.T) {
	var f struct {
		Description string `json:"description"`
		Cases       []struct {
			Name  string `json:"name"`
			Title string `json:"title"`
			Error string `json:"error"`
		} `json:"cases"`
	}
	readVector(t, "titles.json", &f)
	if len(f.Cases) == 0 {
		t.Fatal("vectors/titles.json holds no cases")
	}
	for _, c := range f.Cases {
		err := CheckTitle(c.Title)
		if errText(err) != c.Error {
			t.Errorf("%s: error %q, want %q", c.Name, errText(err), c.Error)
		}
		if e, ok := err.(*Error); ok && e.Code != CodeInvalidInput {
			t.Errorf("%s: code %s", c.Name, e.Code)
		}
	}
}
