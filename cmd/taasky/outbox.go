package main

import (
	"bytes"
	"html/template"
	"regexp"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/notify"
)

// mountOutbox serves the dev outbox, where taasky dev keeps mail when no
// SMTP server is configured: GET /dev/outbox lists it, /dev/outbox/{id}
// shows one message (its text with live links, its attachments),
// /dev/outbox/{id}/html its HTML part (sandboxed: no script, no form),
// /dev/outbox/{id}/raw the message as it would have been sent, and
// /dev/outbox/{id}/attachment/{n} an attachment (the .ics). Dev only: the
// mail holds one-tap links.
func mountOutbox(a *fiber.App, d deps) {
	if d.notify == nil || d.notify.svc == nil {
		return
	}
	svc := d.notify.svc
	g := a.Group("/dev/outbox")
	g.Get("/", func(c *fiber.Ctx) error {
		mails, err := svc.Outbox(c.UserContext(), 200)
		if err != nil {
			return err
		}
		return outboxRender(c, outboxList, mails)
	})
	g.Get("/:id", func(c *fiber.Ctx) error {
		m, p, err := outboxMessage(c, svc)
		if err != nil {
			return err
		}
		return outboxRender(c, outboxShow, struct {
			Mail   app.OutboxMail
			Parsed *notify.Parsed
			Text   template.HTML
		}{m, p, outboxLinkify(p.Text)})
	})
	g.Get("/:id/html", func(c *fiber.Ctx) error {
		_, p, err := outboxMessage(c, svc)
		if err != nil {
			return err
		}
		c.Set("Content-Security-Policy", "sandbox allow-popups allow-popups-to-escape-sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:")
		c.Type("html", "utf-8")
		return c.SendString(p.HTML)
	})
	g.Get("/:id/raw", func(c *fiber.Ctx) error {
		m, _, err := outboxMessage(c, svc)
		if err != nil {
			return err
		}
		c.Type("txt", "utf-8")
		return c.Send(m.Raw)
	})
	g.Get("/:id/attachment/:n", func(c *fiber.Ctx) error {
		_, p, err := outboxMessage(c, svc)
		if err != nil {
			return err
		}
		n, err := strconv.Atoi(c.Params("n"))
		if err != nil || n < 0 || n >= len(p.Attachments) {
			return fiber.ErrNotFound
		}
		att := p.Attachments[n]
		c.Set(fiber.HeaderContentType, att.ContentType)
		c.Attachment(att.Name)
		return c.Send(att.Data)
	})
}

func outboxMessage(c *fiber.Ctx, svc *app.Notifications) (app.OutboxMail, *notify.Parsed, error) {
	id, err := strconv.ParseInt(c.Params("id"), 10, 64)
	if err != nil {
		return app.OutboxMail{}, nil, fiber.ErrNotFound
	}
	m, err := svc.OutboxMessage(c.UserContext(), id)
	if err != nil {
		return m, nil, err
	}
	p, err := notify.Parse(m.Raw)
	return m, p, err
}

func outboxRender(c *fiber.Ctx, t *template.Template, data any) error {
	var buf bytes.Buffer
	if err := t.Execute(&buf, data); err != nil {
		return err
	}
	c.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-src 'self'")
	c.Type("html", "utf-8")
	return c.Send(buf.Bytes())
}

var outboxURL = regexp.MustCompile(`https?://[^\s<>"]+`)

// outboxLinkify escapes text and makes its URLs links.
func outboxLinkify(text string) template.HTML {
	var b bytes.Buffer
	last := 0
	for _, loc := range outboxURL.FindAllStringIndex(text, -1) {
		b.WriteString(template.HTMLEscapeString(text[last:loc[0]]))
		u := template.HTMLEscapeString(text[loc[0]:loc[1]])
		b.WriteString(`<a href="` + u + `">` + u + `</a>`)
		last = loc[1]
	}
	b.WriteString(template.HTMLEscapeString(text[last:]))
	return template.HTML(b.String()) //nolint:gosec // escaped above
}

const outboxStyle = `<style>body{font-family:system-ui,sans-serif;margin:2rem;max-width:60rem;color:#18181b}
table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:.35rem .5rem;border-bottom:1px solid #e4e4e7}
pre{white-space:pre-wrap;background:#f4f4f5;padding:1rem;border-radius:6px}iframe{width:100%;height:36rem;border:1px solid #e4e4e7}</style>`

var outboxList = template.Must(template.New("list").Parse(`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<title>Dev outbox · Taasky</title>` + outboxStyle + `</head><body>
<h1>Dev outbox</h1>
<p>Mail Taasky would have sent. Set <code>SMTP_URL</code> to send it for real.</p>
{{if .}}<table><tr><th>When (UTC)</th><th>To</th><th>Subject</th></tr>
{{range .}}<tr><td>{{.CreatedAt.UTC.Format "2006-01-02 15:04:05"}}</td><td>{{.To}}</td><td><a href="/dev/outbox/{{.ID}}">{{.Subject}}</a></td></tr>
{{end}}</table>{{else}}<p>Nothing yet.</p>{{end}}
</body></html>`))

var outboxShow = template.Must(template.New("show").Parse(`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<title>{{.Parsed.Subject}} · Dev outbox</title>` + outboxStyle + `</head><body>
<p><a href="/dev/outbox">← Dev outbox</a> · <a href="/dev/outbox/{{.Mail.ID}}/raw">raw</a></p>
<h1>{{.Parsed.Subject}}</h1>
<table>
<tr><th>To</th><td>{{.Mail.To}}</td></tr>
<tr><th>From</th><td>{{.Parsed.Header.Get "From"}}</td></tr>
<tr><th>Date</th><td>{{.Parsed.Header.Get "Date"}}</td></tr>
{{with .Parsed.Header.Get "List-Unsubscribe"}}<tr><th>List-Unsubscribe</th><td>{{.}}</td></tr>{{end}}
{{range $i, $a := .Parsed.Attachments}}<tr><th>Attachment</th><td><a href="/dev/outbox/{{$.Mail.ID}}/attachment/{{$i}}">{{$a.Name}}</a> ({{$a.ContentType}})</td></tr>{{end}}
</table>
<h2>Text</h2>
<pre>{{.Text}}</pre>
{{if .Parsed.HTML}}<h2>HTML</h2>
<iframe src="/dev/outbox/{{.Mail.ID}}/html" sandbox="allow-popups allow-popups-to-escape-sandbox" title="HTML part"></iframe>{{end}}
</body></html>`))
