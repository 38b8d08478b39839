package trust

import (
	"bytes"
	"encoding/base64"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"regexp"
	"strings"
)

// readMail parses a message and returns its headers and every part's body,
// decoded (quoted-printable, base64), one after the other.
func readMail(raw []byte) (mail.Header, string, error) {
	m, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return nil, "", err
	}
	var out strings.Builder
	dec := new(mime.WordDecoder)
	if subj, err := dec.DecodeHeader(m.Header.Get("Subject")); err == nil {
		out.WriteString(subj + "\n")
	}
	err = readPart(m.Header.Get("Content-Type"), m.Header.Get("Content-Transfer-Encoding"), m.Body, &out)
	return m.Header, out.String(), err
}

// htmlOf is the text/html parts of a message, decoded.
func htmlOf(raw []byte) string {
	m, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return ""
	}
	var out strings.Builder
	_ = readPartOf("text/html", m.Header.Get("Content-Type"), m.Header.Get("Content-Transfer-Encoding"), m.Body, &out)
	return out.String()
}

func readPart(ctype, cte string, body io.Reader, out *strings.Builder) error {
	return readPartOf("", ctype, cte, body, out)
}

// readPartOf decodes the parts of media type only ("": every part).
func readPartOf(only, ctype, cte string, body io.Reader, out *strings.Builder) error {
	mt, params, err := mime.ParseMediaType(ctype)
	if err != nil {
		mt = "text/plain"
	}
	if strings.HasPrefix(mt, "multipart/") {
		mr := multipart.NewReader(body, params["boundary"])
		for {
			p, err := mr.NextRawPart()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
			if err := readPartOf(only, p.Header.Get("Content-Type"), p.Header.Get("Content-Transfer-Encoding"), p, out); err != nil {
				return err
			}
		}
	}
	if only != "" && mt != only {
		return nil
	}
	var r io.Reader = body
	switch strings.ToLower(cte) {
	case "quoted-printable":
		r = quotedprintable.NewReader(body)
	case "base64":
		r = base64.NewDecoder(base64.StdEncoding, body)
	}
	b, err := io.ReadAll(r)
	out.Write(b)
	out.WriteByte('\n')
	return err
}

var oneTapLink = regexp.MustCompile(`/c/(ot_[A-Za-z0-9_-]{43})`)
