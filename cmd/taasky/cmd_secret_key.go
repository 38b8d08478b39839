package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"time"

	"github.com/taasky/taasky/app"
)

// previousKeyKept is how long what was signed with SECRET_KEY_PREVIOUS
// outside the database may still be used: a dashboard session lasts at
// most app.SessionMaxLife (90 days) from its sign-in, an MCP client's
// refresh token less.
const previousKeyKept = app.SessionMaxLife

// runSecretKeyRotate is `taasky secret-key rotate`.
func runSecretKeyRotate(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	cmd := newCommand("secret-key rotate", "Finishes a rotation of SECRET_KEY. Run it once every process runs with the new key\n"+
		"as SECRET_KEY and the old one as SECRET_KEY_PREVIOUS (this command too): it seals\n"+
		"again under the new key what the database keeps sealed under the old one (limits,\n"+
		"personal links, webhook secrets and payloads, codes and links in jobs, finished ones too),\n"+
		"gives agents' seats room tokens of the new key (the old ones work until\n"+
		"SECRET_KEY_PREVIOUS is removed), keeps the old key's public receipt keys and the\n"+
		"key of the addresses' hashes, then records the new key's fingerprint. It works in\n"+
		"batches beside the running service; interrupted, run it again: it goes on where it\n"+
		"stopped, and a second run changes nothing.", stdout)
	batch := cmd.Int("batch", 500, "rows per batch (`n`, 1 to 10000)")
	asJSON := cmd.Bool("json", false, "print the result as JSON")
	if err := cmd.parse(args); err != nil {
		return err
	}
	if *batch < 1 || *batch > 10000 {
		return usageError{"secret-key rotate: --batch: must be a whole number from 1 to 10000"}
	}
	return onServer(ctx, getenv, func(srv *server) error {
		cfg := srv.cfg
		if !cfg.Rotating() {
			return app.ErrNotRotating
		}
		previous, err := previousReceiptKeys(cfg)
		if err != nil {
			return err
		}
		keys := app.SecretKeys{
			Limits: cfg.Key("limits"), PreviousLimits: cfg.PreviousKey("limits"),
			Token: cfg.Key("room-tokens"), PreviousToken: cfg.PreviousKey("room-tokens"),
			MemberInvites: cfg.Key("member-invites"), PreviousMemberInvites: cfg.PreviousKey("member-invites"),
			KeyCheck: cfg.Key("key-check"), PreviousKeyCheck: cfg.PreviousKey("key-check"),
			PreviousReceipts: previous.Public(),
			ReceiptMAC:       cfg.Key("receipt-keys"), PreviousReceiptMAC: cfg.PreviousKey("receipt-keys"),
		}
		r, err := app.RotateSecretKey(ctx, srv.pool, keys, *batch, nil)
		if err != nil {
			return fmt.Errorf("secret-key rotate: %w (what was done stays done: run the command again)", err)
		}
		until := time.Now().UTC().Add(previousKeyKept).Format("2006-01-02")
		if *asJSON {
			return json.NewEncoder(stdout).Encode(map[string]any{"resealed": r.Resealed, "unopened": r.Unopened,
				"room_tokens": r.RoomTokens, "email_key_kept": r.EmailKeyKept, "receipt_keys": r.ReceiptKeys,
				"previous_removable": true, "previous_kept_until": until})
		}
		for _, c := range slices.Sorted(maps.Keys(r.Resealed)) {
			what := "sealed again under SECRET_KEY"
			if c == "receipt_keys.mac" {
				what = "public receipt keys authenticated under SECRET_KEY"
			}
			fmt.Fprintf(stdout, "%s: %d %s\n", c, r.Resealed[c], what)
		}
		fmt.Fprintf(stdout, "parties.token_hash: %d agents' seats given the new key's room token\n", r.RoomTokens)
		for _, c := range slices.Sorted(maps.Keys(r.Unopened)) {
			fmt.Fprintf(stdout, "%s: %d values open under neither key (sealed under another SECRET_KEY before, or altered): left as they are\n", c, r.Unopened[c])
		}
		fmt.Fprintf(stdout, "%d public receipt keys kept published; the database records SECRET_KEY's fingerprint.\n", r.ReceiptKeys)
		_, err = fmt.Fprintf(stdout, "Done: nothing in the database needs SECRET_KEY_PREVIOUS any more. Remove it and restart each process:\n"+
			"- now, if the old key leaked: then dashboard sessions, MCP clients' OAuth tokens, agents' old room tokens,\n"+
			"  and unsubscribe and refusal links in mails sent before the rotation stop working (people sign in again,\n"+
			"  clients authorize again, agents read their new room tokens with negotiation_list);\n"+
			"- otherwise by %s, when every session and OAuth grant made before the rotation has ended.\n", until)
		return err
	})
}
