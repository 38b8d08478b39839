package dashboard

import (
	"io"
	"strings"

	"github.com/gofiber/fiber/v2"
)

// maxReceiptUpload bounds what /verify reads of a pasted or uploaded
// receipt (a real one is a few KiB).
const maxReceiptUpload = 256 << 10

// verifyShow is the public page where anyone checks a receipt: paste it or
// upload its file. It works without JavaScript and without signing in.
func (d *Dashboard) verifyShow(c *fiber.Ctx) error {
	return d.renderPage(c, "verify", &page{Title: d.words(c, nil).T("verify.heading"), Zone: d.readerZone(c).String(), Data: d.receiptPage(nil)}, nil)
}

// verifyCheck verifies what was pasted or uploaded against this service's
// published keys and shows valid (with the facts, in UTC, or in a
// signed-in person's own zone) or why not.
func (d *Dashboard) verifyCheck(c *fiber.Ctx) error {
	words, loc := d.words(c, nil), d.readerZone(c)
	text := strings.TrimSpace(c.FormValue("receipt"))
	if text == "" {
		if fh, err := c.FormFile("file"); err == nil {
			if f, err := fh.Open(); err == nil {
				b, _ := io.ReadAll(io.LimitReader(f, maxReceiptUpload+1))
				f.Close()
				text = strings.TrimSpace(string(b))
			}
		}
	}
	data := d.receiptPage(nil)
	if text == "" {
		data.Problem = words.T("verify.empty")
		c.Status(fiber.StatusBadRequest)
		return d.renderPage(c, "verify", &page{Title: words.T("verify.heading"), Zone: loc.String(), Data: data}, nil)
	}
	if len(text) <= maxReceiptUpload {
		data.Pasted = text
	}
	r, err := d.receipts.Verify(text)
	if err != nil {
		data.Problem = problemWords(words, err)
		c.Status(fiber.StatusUnprocessableEntity)
	} else {
		kept, point, err := d.rooms.ReceiptOnRecord(c.UserContext(), r.Room.ID, text)
		if err != nil {
			return err
		}
		if !kept && d.receipts.Kept(r.KeyID) {
			// Signed with the key of a SECRET_KEY rotated away, which
			// whoever knew that key can still sign with: valid only as
			// the receipt the database keeps.
			data.Problem = words.T("verify.invalid", words.T("review20k_receipt_retired_key", r.Room.ID))
			c.Status(fiber.StatusUnprocessableEntity)
			return d.renderPage(c, "verify", &page{Title: words.T("verify.heading"), Zone: loc.String(), Data: data}, nil)
		}
		data.W = wordsOfReceipt(words, r, loc)
		data.Valid = words.T("verify.valid", r.Issuer)
		switch {
		case kept:
		case point != nil:
			data.Off = words.T("restore20_receipt_after_backup", r.Room.ID, words.Moment(*point, loc))
		default:
			data.Off = words.T("restore20_receipt_not_kept", r.Room.ID)
		}
	}
	return d.renderPage(c, "verify", &page{Title: words.T("verify.heading"), Zone: loc.String(), Data: data}, nil)
}
