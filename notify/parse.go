package notify

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"strings"
)

// Parsed is an email taken apart: its headers, text and HTML bodies, and
// attachments, decoded. The dev outbox page shows mail with it.
type Parsed struct {
	Header      mail.Header
	Subject     string
	Text        string
	HTML        string
	Attachments []Attachment
}

// Attachment is one attached file.
type Attachment struct {
	Name        string
	ContentType string
	Data        []byte
}

// Parse reads a raw RFC 5322 message.
func Parse(raw []byte) (*Parsed, error) {
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("parse email: %w", err)
	}
	p := &Parsed{Header: msg.Header}
	p.Subject, _ = new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
	err = p.walk(msg.Header.Get("Content-Type"), msg.Header.Get("Content-Transfer-Encoding"),
		msg.Header.Get("Content-Disposition"), msg.Body)
	return p, err
}

func (p *Parsed) walk(contentType, encoding, disposition string, body io.Reader) error {
	mediaType, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		mediaType = "text/plain"
	}
	if strings.HasPrefix(mediaType, "multipart/") {
		r := multipart.NewReader(body, params["boundary"])
		for {
			part, err := r.NextRawPart()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return fmt.Errorf("parse email: %w", err)
			}
			if err := p.walk(part.Header.Get("Content-Type"), part.Header.Get("Content-Transfer-Encoding"),
				part.Header.Get("Content-Disposition"), part); err != nil {
				return err
			}
		}
	}
	data, err := io.ReadAll(decoder(encoding, body))
	if err != nil {
		return fmt.Errorf("parse email: %w", err)
	}
	disp, dparams, _ := mime.ParseMediaType(disposition)
	switch {
	case disp == "attachment" || (disp == "" && params["name"] != "" && !strings.HasPrefix(mediaType, "text/plain")):
		name := dparams["filename"]
		if name == "" {
			name = params["name"]
		}
		p.Attachments = append(p.Attachments, Attachment{Name: name, ContentType: contentType, Data: data})
	case mediaType == "text/html" && p.HTML == "":
		p.HTML = string(data)
	case mediaType == "text/plain" && p.Text == "":
		p.Text = string(data)
	default:
		p.Attachments = append(p.Attachments, Attachment{Name: params["name"], ContentType: contentType, Data: data})
	}
	return nil
}

func decoder(encoding string, r io.Reader) io.Reader {
	switch strings.ToLower(strings.TrimSpace(encoding)) {
	case "quoted-printable":
		return quotedprintable.NewReader(r)
	case "base64":
		return base64.NewDecoder(base64.StdEncoding, r) // it skips line breaks
	}
	return r
}
