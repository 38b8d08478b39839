package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
)

// runAccountDelete is `taasky account delete`: an operator deletes an
// account as its owner would in the dashboard (app.Rooms.DeleteAccount),
// typing its slug again in --confirm. The owner's request returns at once
// and a River job closes the rooms and erases the account; the command
// starts the deletion the same way (the job is queued too), then runs the
// job's steps itself and waits for them: an operator's shell has no proxy
// to time out, and the command says what was done, or fails, when it is
// over. An account already being deleted (its job failing, or no worker
// running) is finished by it.
func runAccountDelete(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	cmd := newCommand("account delete", "Deletes --account: its keys, sessions and links stop working at once, its open\nrooms close (the other side is told), its side of every room and its people who\nbelong to no other account are erased. The other side keeps its rooms. Waits\nuntil done (an account being deleted already is finished).\n--confirm must repeat the account's slug.", stdout)
	slug := cmd.String("account", "", "the account's `slug`")
	confirm := cmd.String("confirm", "", "the account's `slug` again, to confirm")
	asJSON := cmd.Bool("json", false, "print the result as JSON")
	if err := cmd.parse(args, "account", "confirm"); err != nil {
		return err
	}
	return onServer(ctx, getenv, func(srv *server) error { return deleteAccount(ctx, srv, *slug, *confirm, *asJSON, stdout) })
}

func deleteAccount(ctx context.Context, srv *server, slug, confirm string, asJSON bool, stdout io.Writer) error {
	done, err := srv.rooms.DeleteAccountAsOperator(ctx, slug, confirm)
	if err != nil {
		return err
	}
	if asJSON {
		return json.NewEncoder(stdout).Encode(map[string]any{"account": done.Slug, "deleted": !done.Pending,
			"rooms_closed": done.RoomsClosed, "keys_revoked": done.KeysRevoked, "users_erased": done.UsersErased})
	}
	if done.Pending {
		_, err = fmt.Fprintf(stdout, "Account %s is being deleted: %d open rooms closed so far, %d keys revoked; its job finishes the deletion.\n",
			done.Slug, done.RoomsClosed, done.KeysRevoked)
		return err
	}
	_, err = fmt.Fprintf(stdout, "Deleted account %s: %d open rooms closed, %d keys revoked, %d people erased.\n",
		done.Slug, done.RoomsClosed, done.KeysRevoked, done.UsersErased)
	return err
}
