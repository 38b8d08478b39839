package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// command is one subcommand's flag set and the line that explains it.
type command struct {
	*flag.FlagSet
	summary string
	stdout  io.Writer
}

func newCommand(name, summary string, stdout io.Writer) *command {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are returned as one line, not printed
	return &command{FlagSet: fs, summary: summary, stdout: stdout}
}

// parse parses args and checks that the required flags are set. A mistake
// comes back as one line, a usageError.
// parseFile is parse for a command that takes one FILE anywhere among its
// flags (before, after or between them, with --flag value or --flag=value).
func (c *command) parseFile(args []string) (string, error) {
	var file string
	for {
		if err := c.Parse(args); errors.Is(err, flag.ErrHelp) {
			c.printUsage()
			return "", err
		} else if err != nil {
			return "", c.fail("%v", err)
		}
		if c.NArg() == 0 {
			return file, nil
		}
		if file != "" {
			return "", c.fail("unexpected argument %q (one FILE only)", c.Arg(0))
		}
		file, args = c.Arg(0), c.Args()[1:]
	}
}

func (c *command) parse(args []string, required ...string) error {
	if err := c.Parse(args); errors.Is(err, flag.ErrHelp) {
		c.printUsage()
		return err // run turns it into success: -h was asked for
	} else if err != nil {
		return c.fail("%v", err)
	}
	if c.NArg() > 0 {
		return c.fail("unexpected argument %q", c.Arg(0))
	}
	var missing []string
	for _, name := range required {
		if f := c.Lookup(name); strings.TrimSpace(f.Value.String()) == "" {
			missing = append(missing, "--"+name)
		}
	}
	if len(missing) > 0 {
		return c.fail("missing %s", strings.Join(missing, ", "))
	}
	return nil
}

// fail returns a usageError naming the command and pointing at its -h.
func (c *command) fail(format string, args ...any) error {
	return usageError{fmt.Sprintf("%s: %s (see 'taasky %s -h')", c.Name(), fmt.Sprintf(format, args...), c.Name())}
}

func (c *command) printUsage() {
	fmt.Fprintf(c.stdout, "Usage: taasky %s [flags]\n\n%s\n\nFlags:\n", c.Name(), c.summary)
	c.SetOutput(c.stdout)
	c.PrintDefaults()
	c.SetOutput(io.Discard)
}
