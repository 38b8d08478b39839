package config

import (
	"bytes"
	"crypto/ecdh"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
)

const testSecret = "0123456789abcdef0123456789abcdef"

// goodEnv is a complete configuration for every role.
func goodEnv() map[string]string {
	return map[string]string{
		"DATABASE_URL":       "postgres://taasky:pw@db:5432/taasky?sslmode=disable",
		"BASE_URL":           "https://taasky.example.com",
		"SECRET_KEY":         testSecret,
		"OIDC_ISSUER":        "https://accounts.example.com",
		"OIDC_CLIENT_ID":     "taasky",
		"OIDC_CLIENT_SECRET": "s3cret",
	}
}

func vapidPair(t *testing.T) (pub, priv string) {
	t.Helper()
	k, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return base64.RawURLEncoding.EncodeToString(k.PublicKey().Bytes()),
		base64.RawURLEncoding.EncodeToString(k.Bytes())
}

func load(env map[string]string, role Role) (Config, error) {
	return Load(func(k string) string { return env[k] }, role)
}

func TestLoadConfigRules(t *testing.T) {
	pub, priv := vapidPair(t)
	otherPub, _ := vapidPair(t)
	short := base64.RawURLEncoding.EncodeToString(make([]byte, 33))
	serve := RoleWeb | RoleWorker
	tests := []struct {
		name string
		role Role
		set  map[string]string // "" deletes
		want []string          // the error's lines; none: no error
	}{
		{"complete", serve, nil, nil},
		{"database url missing", RoleMigrate, map[string]string{"DATABASE_URL": ""},
			[]string{"DATABASE_URL: is required (a PostgreSQL URL, e.g. postgres://user@host:5432/taasky)"}},
		{"database url bad", RoleMigrate, map[string]string{"DATABASE_URL": "postgres://u:hunter2@db:notaport/x"},
			[]string{"DATABASE_URL: is not a PostgreSQL connection string: "}},
		{"keyword dsn", RoleMigrate, map[string]string{"DATABASE_URL": "host=db user=taasky dbname=taasky"}, nil},
		{"migrate needs only the database", RoleMigrate, map[string]string{"BASE_URL": "", "SECRET_KEY": "", "OIDC_ISSUER": "", "OIDC_CLIENT_ID": "", "OIDC_CLIENT_SECRET": ""}, nil},
		{"admin needs base url", RoleAdmin, map[string]string{"BASE_URL": ""},
			[]string{"BASE_URL: is required (the public URL of Taasky, e.g. https://taasky.example.com)"}},
		{"base url relative", serve, map[string]string{"BASE_URL": "/taasky"},
			[]string{"BASE_URL: must be an absolute http(s) URL, e.g. https://taasky.example.com (the scheme must be http or https)"}},
		{"base url ftp", serve, map[string]string{"BASE_URL": "ftp://x.example.com"},
			[]string{"BASE_URL: must be an absolute http(s) URL, e.g. https://taasky.example.com (the scheme must be http or https)"}},
		{"base url no host", serve, map[string]string{"BASE_URL": "https://"},
			[]string{"BASE_URL: must be an absolute http(s) URL with a host, e.g. https://taasky.example.com"}},
		{"base url query", serve, map[string]string{"BASE_URL": "https://x.example.com/?a=1"},
			[]string{"BASE_URL: must not have a query (?…) or a fragment (#…)"}},
		{"base url fragment", serve, map[string]string{"BASE_URL": "https://x.example.com/#top"},
			[]string{"BASE_URL: must not have a query (?…) or a fragment (#…)"}},
		{"base url port", serve, map[string]string{"BASE_URL": "https://x.example.com:99999"},
			[]string{"BASE_URL: the port must be 1 to 65535 (got 99999)"}},
		{"base url port 0", serve, map[string]string{"BASE_URL": "https://x.example.com:0"},
			[]string{"BASE_URL: the port must be 1 to 65535 (got 0)"}},
		{"base url user", serve, map[string]string{"BASE_URL": "https://me:pw@x.example.com"},
			[]string{"BASE_URL: must not contain a user or password"}},
		{"base url path", serve, map[string]string{"BASE_URL": "https://x.example.com/taasky/"},
			[]string{"BASE_URL: must be the root of a host, without a path (got /taasky): the dashboard's pages link from the host's root, and its sign-in cookies are the whole host's; give Taasky a host of its own, e.g. https://taasky.example.com"}},
		{"base url path for the commands", RoleAdmin, map[string]string{"BASE_URL": "https://x.example.com/taasky"},
			[]string{"BASE_URL: must be the root of a host, without a path (got /taasky)"}},
		{"base url root with a slash", serve, map[string]string{"BASE_URL": "https://x.example.com/"}, nil},
		// Hosts browsers take (WHATWG URL: no STD3 rules, hyphens
		// anywhere): an underscore (a container's name under `taasky
		// dev`), two hyphens in a label's 3rd and 4th places.
		{"base url with an underscore", serve, map[string]string{"BASE_URL": "https://x_y.example.com"}, nil},
		{"base url with two hyphens", serve, map[string]string{"BASE_URL": "https://r3---sn-abc.example.com"}, nil},
		{"base url with an empty label", serve, map[string]string{"BASE_URL": "https://x..example.com"},
			[]string{`BASE_URL: the host "x..example.com" is not a valid domain name`}},
		{"base url not a domain", serve, map[string]string{"BASE_URL": "https://x_y..example.com"},
			[]string{`BASE_URL: the host "x_y..example.com" is not a valid domain name`}},
		{"base url http", serve, map[string]string{"BASE_URL": "http://x.example.com"},
			[]string{"BASE_URL: must be an https URL (http is allowed only for 127.0.0.1, localhost and ::1, or under `taasky dev`): over http, sign-ins and one-tap links travel in the clear; terminate TLS in front of Taasky (deploy/nginx/taasky.conf)"}},
		{"base url http on a private address", RoleWorker, map[string]string{"BASE_URL": "http://192.168.1.5:8080"},
			[]string{"BASE_URL: must be an https URL"}},
		{"base url http on this machine", serve, map[string]string{"BASE_URL": "http://127.0.0.1:8080"}, nil},
		{"base url http on localhost", serve, map[string]string{"BASE_URL": "http://LocalHost:8080"}, nil},
		{"base url http on ::1", serve, map[string]string{"BASE_URL": "http://[::1]:8080"}, nil},
		{"base url http under dev", RoleDev | serve, map[string]string{"BASE_URL": "http://192.168.1.5:8080", "OIDC_ISSUER": "", "OIDC_CLIENT_ID": "", "OIDC_CLIENT_SECRET": ""}, nil},
		{"secret key missing", serve, map[string]string{"SECRET_KEY": ""},
			[]string{"SECRET_KEY: is required (at least 32 random characters, e.g. from `openssl rand -base64 48`)"}},
		{"secret key short", serve, map[string]string{"SECRET_KEY": "too-short"},
			[]string{"SECRET_KEY: must be at least 32 characters (it has 9); generate one with `openssl rand -base64 48`"}},
		{"previous secret key short", serve, map[string]string{"SECRET_KEY_PREVIOUS": "too-short"},
			[]string{"SECRET_KEY_PREVIOUS: must be at least 32 characters (it has 9); generate one with `openssl rand -base64 48`"}},
		{"previous secret key the same", serve, map[string]string{"SECRET_KEY_PREVIOUS": testSecret},
			[]string{"SECRET_KEY_PREVIOUS: must differ from SECRET_KEY (it is the key SECRET_KEY replaces; unset it when not rotating)"}},
		{"previous secret key without a secret key", serve, map[string]string{"SECRET_KEY": "", "SECRET_KEY_PREVIOUS": testSecret + "!"},
			[]string{"SECRET_KEY: is required (at least 32 random characters, e.g. from `openssl rand -base64 48`)",
				"SECRET_KEY_PREVIOUS: is set without SECRET_KEY (set SECRET_KEY to the new key and SECRET_KEY_PREVIOUS to the one it replaces)"}},
		{"web needs oidc", RoleWeb, map[string]string{"OIDC_ISSUER": "", "OIDC_CLIENT_ID": "", "OIDC_CLIENT_SECRET": ""}, []string{
			"OIDC_ISSUER: is required (the issuer URL of your OpenID Connect provider)",
			"OIDC_CLIENT_ID: is required (the client ID registered with the OIDC provider)",
			"OIDC_CLIENT_SECRET: is required (the client secret registered with the OIDC provider)",
		}},
		{"worker needs no oidc", RoleWorker, map[string]string{"OIDC_ISSUER": "", "OIDC_CLIENT_ID": "", "OIDC_CLIENT_SECRET": ""}, nil},
		{"issuer http", RoleWeb, map[string]string{"OIDC_ISSUER": "http://accounts.example.com"},
			[]string{"OIDC_ISSUER: must be an https URL (http is allowed only for 127.0.0.1, localhost and ::1)"}},
		{"issuer http localhost", RoleWeb, map[string]string{"OIDC_ISSUER": "http://localhost:9998"}, nil},
		{"issuer http loopback", RoleWeb, map[string]string{"OIDC_ISSUER": "http://127.0.0.1:9998/realms/x"}, nil},
		{"issuer not a url", RoleWeb, map[string]string{"OIDC_ISSUER": "accounts.example.com"},
			[]string{"OIDC_ISSUER: must be the issuer's URL, e.g. https://accounts.google.com"}},
		{"dev needs no oidc", RoleDev | serve, map[string]string{"OIDC_ISSUER": "", "OIDC_CLIENT_ID": "", "OIDC_CLIENT_SECRET": "", "BASE_URL": ""}, nil},
		// `taasky dev` listened on a free port and printed, and signed in
		// at, http://127.0.0.1:0 (BASE_URL made from LISTEN_ADDR).
		{"dev any free port without base url", RoleDev | serve, map[string]string{"OIDC_ISSUER": "", "OIDC_CLIENT_ID": "", "OIDC_CLIENT_SECRET": "", "BASE_URL": "", "LISTEN_ADDR": "127.0.0.1:0"},
			[]string{"LISTEN_ADDR: under `taasky dev` without BASE_URL, the port must be 1 to 65535 (got 0): the dashboard's, the sign-in's and the agents' URLs are made from it; give a port, or set BASE_URL"}},
		{"dev any free port with base url", RoleDev | serve, map[string]string{"OIDC_ISSUER": "", "OIDC_CLIENT_ID": "", "OIDC_CLIENT_SECRET": "", "BASE_URL": "http://127.0.0.1:8080", "LISTEN_ADDR": "127.0.0.1:0"}, nil},
		{"serve any free port", serve, map[string]string{"LISTEN_ADDR": ":0"}, nil},
		{"dev oidc all or none", RoleDev | serve, map[string]string{"OIDC_CLIENT_ID": "", "OIDC_CLIENT_SECRET": ""}, []string{
			"OIDC_CLIENT_ID: is required (the client ID registered with the OIDC provider)",
			"OIDC_CLIENT_SECRET: is required (the client secret registered with the OIDC provider)",
		}},
		{"smtp", RoleWorker, map[string]string{"SMTP_URL": "smtp://u:p@mail:1025"}, nil},
		{"smtps", RoleWorker, map[string]string{"SMTP_URL": "smtps://u:p@mail"}, nil},
		{"smtp scheme", RoleWorker, map[string]string{"SMTP_URL": "http://u:p@mail:25"},
			[]string{"SMTP_URL: must look like smtp://user:password@host:port or smtps://user:password@host:port (the scheme must be smtp or smtps)"}},
		{"smtp no host", RoleWorker, map[string]string{"SMTP_URL": "smtp://u:p@:25"},
			[]string{"SMTP_URL: must look like smtp://user:password@host:port or smtps://user:password@host:port (the host is missing)"}},
		{"smtp port", RoleWorker, map[string]string{"SMTP_URL": "smtp://u:p@mail:99999"},
			[]string{"SMTP_URL: must look like smtp://user:password@host:port or smtps://user:password@host:port (the port is a number from 1 to 65535)"}},
		{"smtp empty port", RoleWorker, map[string]string{"SMTP_URL": "smtp://u:p@mail:"},
			[]string{"SMTP_URL: must look like smtp://user:password@host:port or smtps://user:password@host:port (the port is empty)"}},
		{"smtp path", RoleWorker, map[string]string{"SMTP_URL": "smtp://u:p@mail:25/x"},
			[]string{"SMTP_URL: must look like smtp://user:password@host:port or smtps://user:password@host:port (nothing may follow host:port)"}},
		{"listen addr", serve, map[string]string{"LISTEN_ADDR": "8080"},
			[]string{"LISTEN_ADDR: must be host:port, e.g. 127.0.0.1:8080 or :8080"}},
		{"pprof addr", serve, map[string]string{"PPROF_ADDR": "6060"},
			[]string{"PPROF_ADDR: must be host:port, e.g. 127.0.0.1:6060 (never a public address)"}},
		{"pprof port", serve, map[string]string{"PPROF_ADDR": "127.0.0.1:99999"},
			[]string{"PPROF_ADDR: must be host:port, e.g. 127.0.0.1:6060 (never a public address) (the port is a number from 0 to 65535)"}},
		{"pprof addr set", serve, map[string]string{"PPROF_ADDR": "127.0.0.1:6060"}, nil},
		{"listen port", serve, map[string]string{"LISTEN_ADDR": ":http"},
			[]string{"LISTEN_ADDR: must be host:port, e.g. 127.0.0.1:8080 or :8080 (the port is a number from 0 to 65535)"}},
		{"vapid pair", serve, map[string]string{"VAPID_PUBLIC_KEY": pub, "VAPID_PRIVATE_KEY": priv}, nil},
		{"vapid padded", serve, map[string]string{"VAPID_PUBLIC_KEY": pub + "=", "VAPID_PRIVATE_KEY": priv + "="}, nil},
		{"vapid public only", serve, map[string]string{"VAPID_PUBLIC_KEY": pub},
			[]string{"VAPID_PRIVATE_KEY: is required when VAPID_PUBLIC_KEY is set (set both or neither)"}},
		{"vapid bad public only", serve, map[string]string{"VAPID_PUBLIC_KEY": "a+b/"}, []string{
			"VAPID_PUBLIC_KEY: must be base64url (RFC 4648 §5), without spaces",
			"VAPID_PRIVATE_KEY: is required when VAPID_PUBLIC_KEY is set (set both or neither)",
		}},
		{"vapid short private only", serve, map[string]string{"VAPID_PRIVATE_KEY": short}, []string{
			"VAPID_PUBLIC_KEY: is required when VAPID_PRIVATE_KEY is set (set both or neither)",
			"VAPID_PRIVATE_KEY: must be a 32-byte P-256 private key in base64url (it decodes to 33 bytes)",
		}},
		{"vapid private only", serve, map[string]string{"VAPID_PRIVATE_KEY": priv},
			[]string{"VAPID_PUBLIC_KEY: is required when VAPID_PRIVATE_KEY is set (set both or neither)"}},
		{"vapid not base64url", serve, map[string]string{"VAPID_PUBLIC_KEY": "a+b/", "VAPID_PRIVATE_KEY": "not base64"}, []string{
			"VAPID_PUBLIC_KEY: must be base64url (RFC 4648 §5), without spaces",
			"VAPID_PRIVATE_KEY: must be base64url (RFC 4648 §5), without spaces",
		}},
		{"vapid lengths", serve, map[string]string{"VAPID_PUBLIC_KEY": short, "VAPID_PRIVATE_KEY": short}, []string{
			"VAPID_PUBLIC_KEY: must be a 65-byte uncompressed P-256 public key in base64url (it decodes to 33 bytes)",
			"VAPID_PRIVATE_KEY: must be a 32-byte P-256 private key in base64url (it decodes to 33 bytes)",
		}},
		{"vapid compressed prefix", serve, map[string]string{"VAPID_PUBLIC_KEY": base64.RawURLEncoding.EncodeToString(append([]byte{2}, make([]byte, 64)...)), "VAPID_PRIVATE_KEY": priv},
			[]string{"VAPID_PUBLIC_KEY: must be a 65-byte uncompressed P-256 public key in base64url (it decodes to 65 bytes, not starting with 0x04)"}},
		{"vapid off curve", serve, map[string]string{"VAPID_PUBLIC_KEY": base64.RawURLEncoding.EncodeToString(append([]byte{4}, bytes.Repeat([]byte{1}, 64)...)), "VAPID_PRIVATE_KEY": priv},
			[]string{"VAPID_PUBLIC_KEY: is not a point on the P-256 curve"}},
		{"vapid zero private", serve, map[string]string{"VAPID_PUBLIC_KEY": pub, "VAPID_PRIVATE_KEY": base64.RawURLEncoding.EncodeToString(make([]byte, 32))},
			[]string{"VAPID_PRIVATE_KEY: is not a valid P-256 private key"}},
		{"vapid mismatch", serve, map[string]string{"VAPID_PUBLIC_KEY": otherPub, "VAPID_PRIVATE_KEY": priv},
			[]string{"VAPID_PUBLIC_KEY: is not the public key of VAPID_PRIVATE_KEY (generate them as a pair)"}},
		{"every problem at once", serve, map[string]string{"DATABASE_URL": "", "BASE_URL": "nope", "SECRET_KEY": "x", "LISTEN_ADDR": "x"}, []string{
			"DATABASE_URL: is required",
			"LISTEN_ADDR: must be host:port",
			"BASE_URL: must be an absolute http(s) URL",
			"SECRET_KEY: must be at least 32 characters (it has 1)",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := goodEnv()
			for k, v := range tt.set {
				if v == "" {
					delete(env, k)
				} else {
					env[k] = v
				}
			}
			_, err := load(env, tt.role)
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("Load: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Load: no error, want %q", tt.want)
			}
			lines := strings.Split(err.Error(), "\n")
			if len(lines) != len(tt.want) {
				t.Fatalf("got %d lines, want %d:\n%v", len(lines), len(tt.want), err)
			}
			for i, want := range tt.want {
				if !strings.HasPrefix(lines[i], want) {
					t.Errorf("line %d = %q, want it to start with %q", i, lines[i], want)
				}
			}
			for _, secret := range []string{"hunter2", "s3cret", testSecret, priv} {
				if strings.Contains(err.Error(), secret) {
					t.Errorf("error shows a secret: %v", err)
				}
			}
		})
	}
}

func TestLoadConfigValues(t *testing.T) {
	env := goodEnv()
	env["BASE_URL"] = "HTTPS://X.Example.com//" // scheme and host in lower case, no trailing slash
	env["SMTP_URL"] = "smtps://mailer:pa%20ss@mail.example.com"
	env["OIDC_ISSUER"] = "https://accounts.example.com/"
	c, err := load(env, RoleWeb|RoleWorker)
	if err != nil {
		t.Fatal(err)
	}
	if c.BaseURL != "https://x.example.com" {
		t.Errorf("BaseURL = %q", c.BaseURL)
	}
	// A domain written in Unicode is kept in its ASCII form, as browsers
	// write it in Origin and OAuth clients compare issuers; a port stays.
	env["BASE_URL"] = "https://Bücher.example:8443/"
	if c, err := load(env, RoleWeb|RoleWorker); err != nil || c.BaseURL != "https://xn--bcher-kva.example:8443" {
		t.Errorf("BaseURL of a Unicode host = %q (%v), want https://xn--bcher-kva.example:8443", c.BaseURL, err)
	}
	env["BASE_URL"] = "http://[::1]:8080"
	if c, err := load(env, RoleWeb|RoleWorker); err != nil || c.BaseURL != "http://[::1]:8080" {
		t.Errorf("BaseURL of an IPv6 host = %q (%v)", c.BaseURL, err)
	}
	if c.ListenAddr != ":8080" {
		t.Errorf("ListenAddr = %q, want :8080 in serve", c.ListenAddr)
	}
	want := SMTP{Host: "mail.example.com", Port: 465, Username: "mailer", Password: "pa ss", ImplicitTLS: true}
	if c.SMTP == nil || *c.SMTP != want {
		t.Errorf("SMTP = %+v, want %+v", c.SMTP, want)
	}
	if c.OIDC.Issuer != "https://accounts.example.com/" { // as given: go-oidc compares the provider's issuer exactly
		t.Errorf("OIDC issuer = %q", c.OIDC.Issuer)
	}
	if c.VAPID != nil {
		t.Errorf("VAPID = %+v, want nil", c.VAPID)
	}
	if s := fmt.Sprint(c); strings.Contains(s, "pa ss") || strings.Contains(s, testSecret) || strings.Contains(s, ":pw@") {
		t.Errorf("Config prints a secret: %s", s)
	}

	dev, err := load(map[string]string{"DATABASE_URL": "postgres://localhost/taasky_dev", "SECRET_KEY": testSecret}, RoleDev|RoleWeb|RoleWorker)
	if err != nil {
		t.Fatal(err)
	}
	if dev.ListenAddr != "127.0.0.1:8080" || dev.BaseURL != "http://127.0.0.1:8080" {
		t.Errorf("dev defaults: listen %q, base %q", dev.ListenAddr, dev.BaseURL)
	}
	if dev.SMTP != nil || dev.OIDC != (OIDC{}) {
		t.Errorf("dev: SMTP %+v, OIDC %+v: want none", dev.SMTP, dev.OIDC)
	}
	smtp, err := load(map[string]string{"DATABASE_URL": "postgres://localhost/x", "SMTP_URL": "smtp://mail"}, RoleMigrate)
	if err != nil {
		t.Fatal(err)
	}
	if *smtp.SMTP != (SMTP{Host: "mail", Port: 587}) {
		t.Errorf("smtp defaults: %+v", smtp.SMTP)
	}
}

// TestLogNamesEveryDatabaseHost: the "starting" line names every host of a
// failover DATABASE_URL (docs/operations.md "Failover"), not the first
// alone, which may be the standby or the server that is down; never the
// password.
func TestLogNamesEveryDatabaseHost(t *testing.T) {
	env := goodEnv()
	env["DATABASE_URL"] = "postgres://taasky:pw@h1.example:5432,h2.example:5433/taasky?target_session_attrs=read-write"
	c, err := load(env, RoleWeb|RoleWorker)
	if err != nil {
		t.Fatal(err)
	}
	s := fmt.Sprint(c)
	if !strings.Contains(s, "taasky@h1.example:5432,h2.example:5433/taasky") || strings.Contains(s, ":pw@") {
		t.Errorf("the log names %s, want both hosts and no password", s)
	}
}

func TestConfigKey(t *testing.T) {
	c, err := load(goodEnv(), RoleWeb)
	if err != nil {
		t.Fatal(err)
	}
	limits, session := c.Key("limits"), c.Key("session")
	if len(limits) != 32 || len(session) != 32 {
		t.Fatalf("key lengths %d, %d; want 32", len(limits), len(session))
	}
	if bytes.Equal(limits, session) {
		t.Error("two purposes gave the same key")
	}
	if !bytes.Equal(limits, c.Key("limits")) {
		t.Error("a purpose's key is not stable")
	}
	if bytes.Contains(limits, []byte(testSecret[:8])) {
		t.Error("the key shows the secret")
	}
	env := goodEnv()
	env["SECRET_KEY"] = testSecret + "!"
	other, err := load(env, RoleWeb)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(limits, other.Key("limits")) {
		t.Error("two secrets gave the same key")
	}
	if c.PreviousKey("limits") != nil || c.Rotating() {
		t.Error("a previous key without SECRET_KEY_PREVIOUS")
	}
	env["SECRET_KEY_PREVIOUS"] = testSecret
	rotating, err := load(env, RoleWeb)
	if err != nil {
		t.Fatal(err)
	}
	if !rotating.Rotating() || !bytes.Equal(rotating.PreviousKey("limits"), limits) || !bytes.Equal(rotating.Key("limits"), other.Key("limits")) {
		t.Error("during a rotation, Key is not the new key's and PreviousKey the old one's")
	}
	defer func() {
		if recover() == nil {
			t.Error("Key without a SECRET_KEY did not panic")
		}
	}()
	Config{}.Key("limits")
}

// TestBaseURLHostNotUTF8: a BASE_URL whose host holds a byte that is no
// UTF-8 (café written by a Latin-1 editor) is refused naming the host; it
// was taken as another host (https://xn--caf-7t7s.example, the byte read
// as U+FFFD), in every link and as the OAuth issuer, and that URL was
// itself refused when given back.
func TestBaseURLHostNotUTF8(t *testing.T) {
	for _, v := range []string{"https://caf\xe9.example", "https://\xbc", "https://%FF.example"} {
		env := goodEnv()
		env["BASE_URL"] = v
		c, err := load(env, RoleWeb|RoleWorker)
		if err == nil || !strings.HasPrefix(err.Error(), "BASE_URL: the host ") || !strings.Contains(err.Error(), "not a valid domain name") {
			t.Errorf("BASE_URL=%q: %q, %v; want refused naming the host", v, c.BaseURL, err)
		}
	}
	if got, err := BaseURL("https://café.example/"); err != nil || got != "https://xn--caf-dma.example" {
		t.Errorf("café: %q %v", got, err)
	}
}

// TestDatabaseURLRefusedInOneLine: a DATABASE_URL with a line break is
// refused in one line naming it; pgconn's error quotes the value as it
// is, and the refusal's second line named nothing.
func TestDatabaseURLRefusedInOneLine(t *testing.T) {
	env := goodEnv()
	env["DATABASE_URL"] = "host=db\nport=x"
	_, err := load(env, RoleWeb|RoleWorker)
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), "DATABASE_URL: ") {
		t.Errorf("%q", err)
	}
}

// TestDatabaseURLRefusalHidesPassword: a DATABASE_URL refused never shows
// its password, nor a word of it: a keyword/value password split by a
// line break, a tab or an escaped space (pgconn masks up to the first
// space, and names the word after a break "missing \"=\" after …"), or
// written "password = …".
func TestDatabaseURLRefusalHidesPassword(t *testing.T) {
	for _, v := range []string{
		"host=h password=s3cr3t port=abc",
		"host=h password=hun\nter2word port=abc",
		"host=h password=hun\tter2word port=abc",
		`host=h password=hun\ ter2word port=x`,
		"host=h password = hunter2word port=x",
		"host=h password= hunter2word port=x",
		"host=h password='hun ter2word' port=x",
		"postgres://u:hun\nter2word@h:x/db",
		"postgres://u:hunter2word%zz@h/db",
	} {
		msg := checkDatabaseURL(v)
		if msg == "" || strings.Contains(msg, "\n") {
			t.Errorf("%q: refused as %q, want one line", v, msg)
		}
		for _, w := range []string{"s3cr3t", "hun", "ter2word", "hunter2word"} {
			if strings.Contains(v, w) && strings.Contains(msg, w) {
				t.Errorf("%q: the refusal %q shows %q of the password", v, msg, w)
			}
		}
	}
}
