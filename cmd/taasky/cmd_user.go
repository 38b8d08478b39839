package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/taasky/taasky/app"
)

// runUserRelink is `taasky user relink`.
func runUserRelink(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	cmd := newCommand("user relink", "Releases the sign-in of the person with --email, whose account at the identity\n"+
		"provider was re-created or whose provider changed (OIDC_ISSUER): their next\n"+
		"sign-in whose provider verifies that address is linked to them, with their\n"+
		"accounts, roles, rooms and settings. Their sessions end now, and the old login\n"+
		"no longer signs in as them. Check first, outside Taasky, that the person\n"+
		"asking holds the address.", stdout)
	email := cmd.String("email", "", "the person's `email` address")
	asJSON := cmd.Bool("json", false, "print the result as JSON")
	if err := cmd.parse(args, "email"); err != nil {
		return err
	}
	return onAccounts(ctx, getenv, func(a *app.Accounts) error {
		r, err := a.ReleaseSignInAsOperator(ctx, *email)
		if err != nil {
			return err
		}
		if *asJSON {
			return json.NewEncoder(stdout).Encode(map[string]any{"email": r.Email, "released_issuer": r.Issuer,
				"released_subject": r.Subject, "accounts": r.Accounts})
		}
		accounts := "no account"
		if len(r.Accounts) > 0 {
			accounts = strings.Join(r.Accounts, ", ")
		}
		_, err = fmt.Fprintf(stdout, "%s no longer signs in with %s (subject %s): their sessions ended. Their next sign-in\n"+
			"whose provider verifies %s is linked to them, in %s (the audit logs say so).\n",
			r.Email, r.Issuer, r.Subject, r.Email, accounts)
		return err
	})
}

// runUserKeyAddresses is `taasky user key-addresses`. It is a command, not
// a step of every start: a process of a build before 2026-12-06 looks the
// addresses up by their plain hash only, so keyed at the first new start
// they would be lost to it (refused invitations sent again) while the
// builds share the database, and for good after a rollback.
func runUserKeyAddresses(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	cmd := newCommand("user key-addresses", "Keys the hashes of addresses that a build before 2026-12-06 kept as a plain SHA-256\n"+
		"(the addresses that refused invitations, the day's sign-ups), which anyone holding a\n"+
		"backup could test addresses against. Run it once every process runs this build\n"+
		"or a later one: an older process no longer finds the keyed ones. Running it\n"+
		"again changes nothing.", stdout)
	if err := cmd.parse(args); err != nil {
		return err
	}
	return onServer(ctx, getenv, func(srv *server) error {
		n, err := app.KeyEmailHashes(ctx, srv.pool, srv.cfg.Key("room-tokens"))
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(stdout, "%d hashes of addresses keyed\n", n)
		return err
	})
}
