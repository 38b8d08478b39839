package dashboard

import (
	"fmt"

	"github.com/gofiber/fiber/v2"
)

// receiptData is the printable receipt and the /verify page.
type receiptData struct {
	W       *receiptWords // nil: nothing verified yet
	Valid   string        // the verdict when valid
	Off     string        // /verify: a valid receipt this Taasky does not keep (issued after a restore's backup point)
	Problem string        // the verdict when not
	RoomID  int64         // the room page's receipt: its room
	Verify  string        // {BASE_URL}/verify
	JWKS    string        // {BASE_URL}/.well-known/jwks.json
	Pasted  string        // /verify: the text sent, shown back
}

// roomReceipt reads the receipt of the room in the path for the signed-in
// person, issuing it on the first ask.
func (d *Dashboard) roomReceipt(c *fiber.Ctx) (roomID int64, jws string, v *viewer, done error) {
	v, done = d.requireViewer(c)
	if v == nil {
		return 0, "", nil, done
	}
	id, err := c.ParamsInt("id")
	if err != nil || id <= 0 {
		return 0, "", nil, d.showErrorT(c, fiber.StatusNotFound, "error.no_room")
	}
	jws, err = d.rooms.ReceiptForHuman(c.UserContext(), v.user.ID, int64(id))
	if err != nil {
		return 0, "", nil, d.fail(c, err)
	}
	return int64(id), jws, v, nil
}

// roomReceiptFile downloads an agreed room's receipt: the JWS, as a file.
func (d *Dashboard) roomReceiptFile(c *fiber.Ctx) error {
	id, jws, v, done := d.roomReceipt(c)
	if v == nil {
		return done
	}
	c.Set(fiber.HeaderContentType, "application/jose")
	c.Set(fiber.HeaderContentDisposition, fmt.Sprintf(`attachment; filename="taasky-receipt-room-%d.jws"`, id))
	return c.SendString(jws)
}

// roomReceiptShow is the printable receipt: the same facts in words, in
// the reader's zone, with where to verify it.
func (d *Dashboard) roomReceiptShow(c *fiber.Ctx) error {
	id, jws, v, done := d.roomReceipt(c)
	if v == nil {
		return done
	}
	r, err := d.receipts.Verify(jws)
	if err != nil {
		return d.fail(c, fmt.Errorf("room %d: its own receipt does not verify: %w", id, err))
	}
	loc := v.loc()
	words := d.words(c, v)
	data := d.receiptPage(wordsOfReceipt(words, r, loc))
	data.RoomID = id
	return d.renderPage(c, "receipt", &page{Title: words.T("receipt.heading"), Zone: loc.String(), Data: data}, v)
}

func (d *Dashboard) receiptPage(w *receiptWords) *receiptData {
	return &receiptData{W: w, Verify: d.baseURL + "/verify", JWKS: d.baseURL + "/.well-known/jwks.json"}
}
