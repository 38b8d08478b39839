package jobs

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base32"
	"strings"
)

// UniqueID names one message or calendar event so that no other database
// names another one the same: the first 128 bits of HMAC-SHA256 keyed by
// the installation's id (made once, at random, by migration 00019) over
// the parts, which name the thing in this database (a job's id and the
// moment it was created, a room's id and the moment it was opened). A
// database recreated, or staging beside production, has another
// installation id; a database restored from a backup has the same one but
// makes its new jobs and rooms at other moments. The same parts always
// give the same id: a retried email keeps its Message-ID, an agreed
// room's .ics its UIDs.
func UniqueID(installation string, parts ...string) string {
	mac := hmac.New(sha256.New, []byte(installation))
	mac.Write([]byte(strings.Join(parts, "\x00")))
	return strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(mac.Sum(nil)[:16]))
}
