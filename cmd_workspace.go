package main

import (
	"flag"
	"fmt"
	"io"
	"strconv"

	"skillet/harness/workspace"
)

const workspaceUsage = `usage: skillet workspace [flags] SESSION --out DIR

Writes out the workspace of a session as it was at a point: the files its
agent tools created, changed or deleted come from the journal, the others
from the folder a copied workspace started from (as it is today; said when
so). SESSION is a session id, a session folder or a journal. --at takes a
model call number (the workspace as that call went out) or a tool call id
(right after that call); without it, the end of the session. DIR must be
new or empty. Exit status: 0, 1 when the session cannot be read or the
folder written, 2 on a usage error.

Flags:
`

// runWorkspace is `skillet workspace`.
func runWorkspace(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("skillet workspace", flag.ContinueOnError)
	sessionDir := fs.String("session-dir", "", "`DIR` where session journals are (default $XDG_STATE_HOME/skillet/sessions)")
	at := fs.String("at", "", "a model call `NUMBER` or a tool call ID (default: the end of the session)")
	out := fs.String("out", "", "the `DIR` to write the workspace into (new or empty)")
	asJSON := fs.Bool("json", false, "print what was written as one JSON object")
	rest, code, done := parseInterleaved(fs, args, workspaceUsage, stdout, stderr)
	if done {
		return code
	}
	if len(rest) != 1 || *out == "" {
		fmt.Fprintln(stderr, "skillet workspace: give one SESSION and --out DIR")
		printUsage(fs, stderr, workspaceUsage)
		return 2
	}
	journal, err := resumePath(rest[0], sessionsDir(*sessionDir))
	if err != nil {
		return reportError(stderr, "skillet workspace", err)
	}
	var point workspace.Point
	if *at != "" {
		if n, err := strconv.Atoi(*at); err == nil {
			if n < 1 {
				fmt.Fprintln(stderr, "skillet workspace: --at: model calls are numbered from 1")
				return 2
			}
			point.Call = n
		} else {
			point.ToolCallID = *at
		}
	}
	rep, err := workspace.WriteAt(journal, point, *out)
	for _, w := range rep.Warned {
		fmt.Fprintln(stderr, "skillet workspace: warning:", w)
	}
	if err != nil {
		return reportError(stderr, "skillet workspace", err)
	}
	if *asJSON {
		return writeJSON(stdout, stderr, "skillet workspace", rep)
	}
	fmt.Fprintf(stdout, "wrote the %s workspace into %s (%d files from the journal)\n", rep.Mode, *out, rep.Files)
	return 0
}
