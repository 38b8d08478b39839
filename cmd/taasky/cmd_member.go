package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/config"
)

// The `taasky member` commands: an operator's way to add, remove and
// change the role of an account's members (the dashboard's, without its
// checks of who asks: the operator is trusted; the last owner is still
// kept). Each is written to the account's audit log as by "operator".

// runMemberAdd is `taasky member add`.
func runMemberAdd(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	cmd := newCommand("member add", "Makes --email a member of --account with --role (member, admin or owner).\nThey join at their first sign-in with that (verified) address.", stdout)
	slug, email, role, asJSON := memberFlags(cmd, true, "member")
	if err := cmd.parse(args, "account", "email"); err != nil {
		return err
	}
	return onAccounts(ctx, getenv, func(a *app.Accounts) error {
		r, err := app.ParseRole(*role)
		if err != nil {
			return err
		}
		if err := a.AddMemberAsOperator(ctx, *slug, *email, r); err != nil {
			return err
		}
		return memberResult(stdout, *asJSON, *slug, *email, string(r), fmt.Sprintf("%s is a member of %s (%s).", *email, *slug, r))
	})
}

// runMemberRemove is `taasky member remove`.
func runMemberRemove(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	cmd := newCommand("member remove", "Removes --email from --account: their agents' keys, their sessions and the\ninvitations they sent stop working at once; their open rooms stay open and go\nto the account's owners.", stdout)
	slug, email, _, asJSON := memberFlags(cmd, false, "")
	if err := cmd.parse(args, "account", "email"); err != nil {
		return err
	}
	return onAccounts(ctx, getenv, func(a *app.Accounts) error {
		if err := a.RemoveMemberAsOperator(ctx, *slug, *email); err != nil {
			return err
		}
		return memberResult(stdout, *asJSON, *slug, *email, "", fmt.Sprintf("%s is no longer a member of %s.", *email, *slug))
	})
}

// runMemberRole is `taasky member role`.
func runMemberRole(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	cmd := newCommand("member role", "Sets the --role (member, admin or owner) of --email in --account. The last\nowner cannot be demoted.", stdout)
	// No default role: a forgotten --role must not silently demote.
	slug, email, role, asJSON := memberFlags(cmd, true, "")
	if err := cmd.parse(args, "account", "email", "role"); err != nil {
		return err
	}
	return onAccounts(ctx, getenv, func(a *app.Accounts) error {
		r, err := app.ParseRole(*role)
		if err != nil {
			return err
		}
		if err := a.ChangeRoleAsOperator(ctx, *slug, *email, r); err != nil {
			return err
		}
		return memberResult(stdout, *asJSON, *slug, *email, string(r), fmt.Sprintf("%s is %s of %s.", *email, r, *slug))
	})
}

// memberFlags declares the member commands' flags; defaultRole is --role's
// default ("" where the command requires it).
func memberFlags(cmd *command, withRole bool, defaultRole string) (slug, email, role *string, asJSON *bool) {
	slug = cmd.String("account", "", "the account's `slug`")
	email = cmd.String("email", "", "the member's `email` address")
	if withRole {
		role = cmd.String("role", defaultRole, "the `role`: member, admin or owner")
	}
	asJSON = cmd.Bool("json", false, "print the result as JSON")
	return slug, email, role, asJSON
}

func onAccounts(ctx context.Context, getenv func(string) string, do func(*app.Accounts) error) error {
	cfg, err := loadConfig(getenv, config.RoleAdmin)
	if err != nil {
		return err
	}
	var pool *pgxpool.Pool
	if pool, err = openDatabase(ctx, cfg.DatabaseURL); err != nil {
		return err
	}
	defer pool.Close()
	return do(app.NewAccounts(pool))
}

func memberResult(stdout io.Writer, asJSON bool, slug, email, role, text string) error {
	if asJSON {
		out := map[string]any{"account": slug, "email": email}
		if role != "" {
			out["role"] = role
		} else {
			out["removed"] = true
		}
		return json.NewEncoder(stdout).Encode(out)
	}
	_, err := fmt.Fprintln(stdout, text)
	return err
}
