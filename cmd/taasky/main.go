// Command taasky runs Taasky: the web service, its job workers, its database
// migrations, and the admin commands that create accounts and agents.
//
// This package only wires: it reads the configuration, opens the database,
// starts River and the one Fiber app, and hands each part what it needs. It
// holds no package-level state; everything hangs off run's arguments.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	_ "time/tzdata" // users' time zones work on images without /usr/share/zoneinfo
)

func main() {
	if os.Getenv("GOGC") == "" {
		// The MCP layer allocates heavily per call; a sparser GC gave
		// 1.3–2.3× the throughput on 2 cores (DESIGN.md §1). GOGC overrides.
		debug.SetGCPercent(400)
		// …short of a soft memory limit: that slack grows with what is live.
		if limit := memoryLimit(os.Getenv, os.ReadFile); limit > 0 {
			debug.SetMemoryLimit(limit)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // a second signal ends the process at once
	}()
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "taasky:", err)
		if errors.As(err, new(usageError)) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

const usage = `Usage: taasky <command> [flags]

Commands:
  dev              run everything on this machine, no setup needed
  serve            run the service (--web, --worker), configured by environment
  migrate          bring the database schema up to date
  account create   create an account and its owner
  account operator flag a member as an operator (the job queue at /admin/jobs)
  account delete   delete an account (--confirm repeats its slug): the other side keeps its rooms
  agent create     create an agent and print its MCP URL and key
  member add       make someone a member of an account (with --role)
  member remove    remove a member: their agents' keys and sessions stop working
  member role      change a member's role (owner, admin, member)
  user relink      release a person's sign-in: their next verified sign-in with the address links
  user key-addresses  key the plain address hashes older builds kept (once every process is new)
  secret-key rotate  seal again under SECRET_KEY what is kept under SECRET_KEY_PREVIOUS (docs/operations.md)
  check            replay every room's log, verify its hash chain, compare it with the stored room
  after-restore    after a backup restored in place: skip the ids the lost time handed out, end sessions
  after-move       after a pg_upgrade or a move that lost nothing: record the database, move nothing
  receipt verify   check an agreement's receipt (a .jws file) against the issuer's keys, offline
  bench            load Taasky with real MCP agents and measure it against the machine's floors
  probe --url U    exit 0 if U answers 200 (a container's healthcheck: the image has no shell)

Run 'taasky <command> -h' for a command's flags. Configuration: see README.md.
`

// run is the whole program: main only adds the process's signals, arguments,
// environment and standard streams.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	err := dispatch(ctx, args, getenv, stdout, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil // the command printed its usage
	}
	return err
}

func dispatch(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return usageError{"no command given"}
	}
	cmd, rest := args[0], args[1:]
	if len(rest) > 0 && (cmd == "account" || cmd == "agent" || cmd == "member" || cmd == "receipt" || cmd == "user" || cmd == "secret-key") {
		cmd, rest = cmd+" "+rest[0], rest[1:]
	}
	switch cmd {
	case "dev":
		return runDev(ctx, rest, getenv, stdout, stderr)
	case "serve":
		return runServe(ctx, rest, getenv, stdout, stderr)
	case "migrate":
		return runMigrate(ctx, rest, getenv, stdout)
	case "account create":
		return runAccountCreate(ctx, rest, getenv, stdout)
	case "account operator":
		return runAccountOperator(ctx, rest, getenv, stdout)
	case "account delete":
		return runAccountDelete(ctx, rest, getenv, stdout)
	case "agent create":
		return runAgentCreate(ctx, rest, getenv, stdout)
	case "member add":
		return runMemberAdd(ctx, rest, getenv, stdout)
	case "member remove":
		return runMemberRemove(ctx, rest, getenv, stdout)
	case "member role":
		return runMemberRole(ctx, rest, getenv, stdout)
	case "user relink":
		return runUserRelink(ctx, rest, getenv, stdout)
	case "user key-addresses":
		return runUserKeyAddresses(ctx, rest, getenv, stdout)
	case "secret-key rotate":
		return runSecretKeyRotate(ctx, rest, getenv, stdout)
	case "check":
		return runCheck(ctx, rest, getenv, stdout)
	case "after-restore":
		return runAfterRestore(ctx, rest, getenv, stdout)
	case "after-move":
		return runAfterMove(ctx, rest, getenv, stdout)
	case "receipt verify":
		return runReceiptVerify(ctx, rest, getenv, stdout)
	case "bench":
		return runBench(ctx, rest, getenv, stdout)
	case "probe":
		return runProbe(ctx, rest, stdout)
	case "bench-echo":
		return runBenchEcho(ctx, getenv)
	case "bench-echo-default":
		return runBenchEchoDefault(ctx, getenv)
	case "help", "-h", "-help", "--help":
		_, err := io.WriteString(stdout, usage)
		return err
	case "receipt":
		return usageError{"receipt: which command? try 'receipt verify FILE'"}
	case "account":
		return usageError{"account: which command? try 'account create', 'account operator' or 'account delete'"}
	case "member":
		return usageError{"member: which command? try 'member add', 'member remove' or 'member role'"}
	case "agent":
		return usageError{"agent: which command? try 'agent create'"}
	case "user":
		return usageError{"user: which command? try 'user relink' or 'user key-addresses'"}
	case "secret-key":
		return usageError{"secret-key: which command? try 'secret-key rotate'"}
	}
	fmt.Fprint(stderr, usage)
	return usageError{fmt.Sprintf("unknown command %q", cmd)}
}

// usageError is a mistake in the command line: main exits with status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }
