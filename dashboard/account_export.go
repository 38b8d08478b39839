package dashboard

import (
	"encoding/json"
	"io"
	"os"

	"github.com/gofiber/fiber/v2"
	"github.com/taasky/taasky/internal/fiberhttp"
)

// accountExport sends the account's export as a JSON file (owners and
// admins; the export is audited, so it is a POST).
func (d *Dashboard) accountExport(c *fiber.Ctx) error {
	v, done := d.requireViewer(c)
	if v == nil {
		return done
	}
	slug := c.Params("slug")
	release, ok := d.downloads.take(v.user.ID)
	if !ok {
		return d.downloadBusy(c)
	}
	ctx, cancel := longContext(c)
	defer cancel()
	return d.sendJSONSpooled(c, "taasky-"+slug+"-export.json", release, func(w io.Writer) error {
		return d.rooms.WriteAccountExport(ctx, v.user.ID, slug, w)
	})
}

// sendJSONFile sends v as a JSON file to download, named name (a name of
// ours: letters, digits, dashes and dots only).
func (d *Dashboard) sendJSONFile(c *fiber.Ctx, v any, name string) error {
	out, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return d.fail(c, err)
	}
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSONCharsetUTF8)
	c.Set(fiber.HeaderContentDisposition, `attachment; filename="`+name+`"`)
	return c.Send(out)
}

// sendJSONSpooled sends what write writes as a JSON file to download,
// named as sendJSONFile names it. write writes to a temporary file, not
// to memory, and the file is sent from disk: an export of an account's
// twenty thousand rooms is never whole in memory; an error halfway is
// still a whole error page, never a file cut short that looks complete;
// and a slow download does not hold the export's transaction open. The
// file is unlinked at once (the open file is read until it is sent and
// closed), so none is left behind, even by a crash. release (the person's
// download, oneAtATime) is called once the file is sent, or its sending
// failed, or at once when there is none to send: a client reading slowly
// holds its file on disk, and so its person's one download.
func (d *Dashboard) sendJSONSpooled(c *fiber.Ctx, name string, release func(), write func(io.Writer) error) error {
	sending := false
	defer func() {
		if !sending {
			release()
		}
	}()
	f, err := os.CreateTemp("", "taasky-download-*.json")
	if err != nil {
		return d.fail(c, err)
	}
	_ = os.Remove(f.Name())
	size, err := spool(f, write)
	if err != nil {
		_ = f.Close()
		return d.fail(c, err)
	}
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSONCharsetUTF8)
	c.Set(fiber.HeaderContentDisposition, `attachment; filename="`+name+`"`)
	// Sent for as long as its client reads it (fiberhttp.Paced): a file of
	// tens of MB takes a slow connection more than the server's
	// WriteTimeout. A person's phone may read at 16 KB/s: the file is on
	// disk, not in memory, meanwhile.
	c.Context().SetBodyStream(fiberhttp.NewPaced(c, f, 16<<10, release), int(size))
	sending = true
	return nil
}

// spool has write fill f and rewinds it: its size.
func spool(f *os.File, write func(io.Writer) error) (int64, error) {
	if err := write(f); err != nil {
		return 0, err
	}
	size, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return 0, err
	}
	_, err = f.Seek(0, io.SeekStart)
	return size, err
}
