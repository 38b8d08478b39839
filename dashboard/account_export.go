package dashboard

import (
	"encoding/json"
	"io"
	"net"
	"os"
	"time"

	"github.com/gofiber/fiber/v2"
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
	c.Context().SetBodyStream(&download{f: f, conn: c.Context().Conn(), start: time.Now(), done: release}, int(size))
	sending = true
	return nil
}

// A download goes on while its client reads it: it is cut when the client
// has read nothing for downloadIdle, or reads slower on average than
// downloadRate bytes a second (past the first downloadIdle).
const (
	downloadIdle = time.Minute
	downloadRate = 16 << 10
)

// download is a spooled file as the response's body: fasthttp reads it as
// it writes it to the client, and closes it once written or failed. The
// server's WriteTimeout (60 s) is fasthttp's deadline for a whole answer,
// set once as it starts: a file of tens of MB to a slow connection (39 MB
// at 5 Mbit/s takes a minute) was cut there, every time it was asked for.
// Each Read moves the connection's write deadline on instead (downloadIdle,
// downloadRate); fasthttp sets its own again for the next answer.
type download struct {
	f     *os.File
	conn  net.Conn
	start time.Time
	sent  int64
	done  func()
}

func (d *download) Read(p []byte) (int, error) {
	deadline := time.Now().Add(downloadIdle)
	if most := d.start.Add(downloadIdle + time.Duration(d.sent+int64(len(p)))*time.Second/downloadRate); most.Before(deadline) {
		deadline = most
	}
	_ = d.conn.SetWriteDeadline(deadline)
	n, err := d.f.Read(p)
	d.sent += int64(n)
	return n, err
}

func (d *download) Close() error {
	err := d.f.Close()
	d.done()
	return err
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
