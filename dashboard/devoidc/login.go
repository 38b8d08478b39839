package devoidc

import (
	"context"
	"html/template"
	"net/http"
	"net/mail"
	"net/url"
	"strings"
	"time"
)

// login is the provider's sign-in page: pick an address or type one.
type login struct {
	storage *storage
	emails  func(ctx context.Context) ([]string, error)
}

var loginPage = template.Must(template.New("login").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in · Taasky dev identity provider</title><link rel="stylesheet" href="/static/app.css"></head>
<body><main id="main">
<h1>Sign in</h1>
<p class="note">This is Taasky's development identity provider: it signs in any address, verified. It runs only in <code>taasky dev</code> and tests.</p>
{{if .Error}}<p class="error" role="alert">{{.Error}}</p>{{end}}
{{if .Emails}}<h2>Demo people</h2>
{{range .Emails}}<form method="post" action="login" class="stack">
<input type="hidden" name="id" value="{{$.ID}}"><input type="hidden" name="email" value="{{.}}">
<button class="primary" data-email="{{.}}">Sign in as {{.}}</button></form>{{end}}{{end}}
<h2>Someone else</h2>
<form method="post" action="login" class="stack">
<input type="hidden" name="id" value="{{.ID}}">
<label for="email">Email address</label>
<input id="email" name="email" type="email" autocomplete="email" required value="{{.Email}}">
<button>Sign in</button></form>
</main></body></html>`))

type loginData struct {
	ID, Email, Error string
	Emails           []string
}

func (l *login) render(w http.ResponseWriter, r *http.Request, d loginData, status int) {
	if l.emails != nil {
		ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
		d.Emails, _ = l.emails(ctx)
		cancel()
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; form-action 'self'; frame-ancestors 'none'")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = loginPage.Execute(w, d)
}

func (l *login) show(w http.ResponseWriter, r *http.Request) {
	l.render(w, r, loginData{ID: r.URL.Query().Get("authRequestID")}, http.StatusOK)
}

func (l *login) submit(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "the form could not be read", http.StatusBadRequest)
		return
	}
	id, email := r.PostForm.Get("id"), strings.TrimSpace(r.PostForm.Get("email"))
	addr, err := mail.ParseAddress(email)
	if err != nil || addr.Address != email || addr.Name != "" {
		l.render(w, r, loginData{ID: id, Email: email, Error: "email: must be an address like name@example.com"}, http.StatusBadRequest)
		return
	}
	if err := l.storage.signIn(id, strings.ToLower(email)); err != nil {
		l.render(w, r, loginData{ID: id, Email: email, Error: err.Error()}, http.StatusBadRequest)
		return
	}
	http.Redirect(w, r, l.storage.issuer+"/authorize/callback?id="+url.QueryEscape(id), http.StatusFound)
}
