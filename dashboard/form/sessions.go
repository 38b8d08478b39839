package form

import "strconv"

// SessionID reads the id of one of the person's sessions (Settings, "Where
// you are signed in"); ok is false when the form names none, or one badly.
func SessionID(value func(key string, def ...string) string) (id int64, ok bool) {
	id, err := strconv.ParseInt(value("id"), 10, 64)
	return id, err == nil && id > 0
}
