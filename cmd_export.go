package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"skillet/harness"
	"skillet/harness/share"
	"skillet/harness/view"
)

const exportUsage = `usage: skillet export [flags] SESSION

Writes a session for people who were not there, without changing it:
--md the transcript as Markdown (as /export does), --cast an asciicast v2
recording of the transcript (the journal's timings, pauses over 2s cut to
2s; plays in any asciinema player), --html a self-contained HTML replay
that steps through the model calls with the arrow keys, showing the
transcript, loaded skills, <current_context> and tools at each. SESSION is
a session id, a session folder or a journal. A FILE of - is stdout. A
damaged journal line is named on stderr and left out. Exit status: 0, 1
when the journal cannot be read or a file cannot be written, 2 on a usage
error.

Flags:
`

// runExport is `skillet export`.
func runExport(args []string, stdout, stderr io.Writer) int {
	var c common
	var md, cast, page string
	fs := flag.NewFlagSet("skillet export", flag.ContinueOnError)
	fs.StringVar(&md, "md", "", "write the transcript as Markdown to `FILE`")
	fs.StringVar(&cast, "cast", "", "write an asciicast v2 recording to `FILE`")
	fs.StringVar(&page, "html", "", "write a self-contained HTML replay to `FILE`")
	c.registerSession(fs)
	for _, name := range []string{"skills", "config"} {
		fs.Lookup(name).Usage = "with --md: " + fs.Lookup(name).Usage // the other files need no skills
	}
	pos, code, done := parseInterleaved(fs, args, exportUsage, stdout, stderr)
	if done {
		return code
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, "skillet export: give one SESSION (an id, a session folder or a journal)")
		printUsage(fs, stderr, exportUsage)
		return 2
	}
	if md == "" && cast == "" && page == "" {
		fmt.Fprintln(stderr, "skillet export: say what to write: --md FILE, --cast FILE or --html FILE (one or more)")
		return 2
	}
	path, err := resumePath(pos[0], sessionsDir(c.sessionDir))
	if err != nil {
		fmt.Fprintln(stderr, "skillet export:", strings.TrimPrefix(err.Error(), "--resume: "))
		return 2
	}
	if err := checkOutputs(path, [][2]string{{"--md", md}, {"--cast", cast}, {"--html", page}}); err != nil {
		fmt.Fprintln(stderr, "skillet export:", err)
		return 2
	}
	code = 0
	// the cast and the page share one fold; the Markdown folds the journal
	// with its skills, so --md alone never reads it for them
	if cast != "" || page != "" {
		sh, err := view.ShareJournal(journalFile(path))
		if err != nil {
			fmt.Fprintln(stderr, "skillet export:", err)
			return 1
		}
		for _, p := range sh.Problems {
			fmt.Fprintf(stderr, "skillet export: %s: %s\n", path, p)
		}
		if cast != "" && !writeExport(cast, stdout, stderr, func(w io.Writer) error { return share.WriteCast(w, sh) }) {
			code = 1
		}
		if page != "" && !writeExport(page, stdout, stderr, func(w io.Writer) error { return share.WriteHTML(w, sh) }) {
			code = 1
		}
	}
	if md != "" && !exportMarkdown(&c, path, md, cast == "" && page == "", stdout, stderr) {
		code = 1
	}
	return code
}

// checkOutputs refuses an output file that is the journal being read (by
// any path, a symlink too) or that two flags name: either would leave one
// of the files lost.
func checkOutputs(session string, outs [][2]string) error {
	jfi, jerr := os.Stat(journalFile(session))
	same := func(a, b string) bool {
		if filepath.Clean(a) == filepath.Clean(b) {
			return true
		}
		fa, err1 := os.Stat(a)
		fb, err2 := os.Stat(b)
		return err1 == nil && err2 == nil && os.SameFile(fa, fb)
	}
	for i, o := range outs {
		if o[1] == "" || o[1] == "-" {
			continue
		}
		if fi, err := os.Stat(o[1]); jerr == nil && err == nil && os.SameFile(fi, jfi) {
			return usageError{fmt.Sprintf("%s %s is the session's journal: export never writes over what it reads", o[0], o[1])}
		}
		for _, p := range outs[:i] {
			if p[1] != "" && p[1] != "-" && same(p[1], o[1]) {
				return usageError{fmt.Sprintf("%s and %s both name %s: give each its own file", p[0], o[0], o[1])}
			}
		}
	}
	return nil
}

// journalFile is the journal of a session given as its folder or its
// journal file.
func journalFile(session string) string {
	if fi, err := os.Stat(session); err == nil && fi.IsDir() {
		return filepath.Join(session, harness.JournalFile)
	}
	return session
}

// exportMarkdown writes /export's Markdown of the session at path, folded
// with its skills as `skillet show` folds it. nameSkipped says the lines
// the fold skips were not named already.
func exportMarkdown(c *common, path, file string, nameSkipped bool, stdout, stderr io.Writer) bool {
	c.resume = path
	s, _, skipped, err := inspectSession(c)
	if err != nil {
		fmt.Fprintln(stderr, "skillet export: --md:", strings.TrimPrefix(err.Error(), "--resume: "))
		return false
	}
	defer s.Close()
	if nameSkipped {
		for _, p := range skipped {
			fmt.Fprintf(stderr, "skillet export: %s: %s was skipped\n", path, p)
		}
	}
	// Markdown is text: nothing in it may drive the terminal it is read in
	return writeExport(file, stdout, stderr, func(w io.Writer) error { return s.ExportMarkdown(plainWriter{w}) })
}

// writeFile writes one file (stdout for -) with perm, and says what went
// wrong after who, the command's name.
func writeFile(who, file string, perm os.FileMode, stdout, stderr io.Writer, write func(io.Writer) error) bool {
	if file == "-" {
		if err := write(stdout); err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", who, err)
			return false
		}
		return true
	}
	f, err := os.OpenFile(file, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, perm)
	if err != nil {
		if pe := (*os.PathError)(nil); errors.As(err, &pe) {
			err = pe.Err
		}
		fmt.Fprintf(stderr, "%s: cannot write %s: %v\n", who, file, err)
		return false
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %s: %v\n", who, file, err)
		return false
	}
	return true
}

// writeExport writes one of export's files, readable by its owner only as
// the journal is: an export holds the whole conversation and its tool
// output, and the owner decides whom to share it with.
func writeExport(file string, stdout, stderr io.Writer, write func(io.Writer) error) bool {
	return writeFile("skillet export", file, 0o600, stdout, stderr, write)
}
