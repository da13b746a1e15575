package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"iter"
	"strings"

	"skillet/harness"
	"skillet/harness/profile"
	"skillet/harness/rulebook"
	"skillet/harness/view"
)

const showUsage = `usage: skillet show [flags] SESSION

Prints the state a reopened session has — the loaded skills in LRU order,
preloads, <current_context>, the tools of the next request, the window,
each turn's Offered / Delivered / Loaded and uses, stores, per-load states
and the token ledger — without changing the session: no journal line or
file is written. SESSION is a session id, a session folder or a journal.
Its skills are read from the folders and config the session used, unless
--skills or --config says otherwise. Exit status: 0, 1 when the journal
cannot be read, 2 on a usage error.

Flags:
`

// runShow is `skillet show`.
func runShow(args []string, stdout, stderr io.Writer) int {
	var c common
	fs := flag.NewFlagSet("skillet show", flag.ContinueOnError)
	c.registerSession(fs)
	asJSON := fs.Bool("json", false, "print the state as one JSON object (see the README)")
	pos, code, done := parseInterleaved(fs, args, showUsage, stdout, stderr)
	if done {
		return code
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, "skillet show: give one SESSION (an id, a session folder or a journal)")
		printUsage(fs, stderr, showUsage)
		return 2
	}
	c.resume = pos[0]
	// set before the fold: a journal streams through it, so the heap it
	// makes is the session's own
	limitMemory()
	s, w, problems, err := inspectSession(&c)
	if w != nil {
		printNotices(stderr, w)
		for _, p := range problems {
			fmt.Fprintf(stderr, "skillet show: %s: %s was skipped\n", w.journal, p)
		}
	}
	if err != nil {
		var ue usageError
		if errors.As(err, &ue) { // SESSION is the argument here, not --resume
			err = usageError{strings.TrimPrefix(ue.msg, "--resume: ")}
		}
		return reportError(stderr, "skillet show", err)
	}
	defer s.Close()
	if *asJSON {
		v, turns := s.StateTurns()
		if err := encodeState(stdout, v, turns); err != nil {
			fmt.Fprintf(stderr, "skillet show: %v\n", err)
			return 1
		}
		return 0
	}
	printState(stdout, s.State())
	return 0
}

// encodeState writes a state view as encodeJSON does, its turns taken
// from turns one at a time: a long session's turn records are never all
// held, in memory or in the encoder's buffer.
func encodeState(w io.Writer, v *view.StateView, turns iter.Seq[view.TurnView]) error {
	var head bytes.Buffer
	v.Turns = []view.TurnView{}
	if err := encodeJSON(&head, v); err != nil {
		return err
	}
	const key = "\n  \"turns\": []"
	b := head.Bytes()
	i := bytes.Index(b, []byte(key))
	if i < 0 {
		return errors.New("write JSON: the state has no turns field")
	}
	bw := bufio.NewWriter(w)
	bw.Write(b[:i+len(key)-1]) // up to the list's [
	var one bytes.Buffer
	enc := json.NewEncoder(&one)
	enc.SetIndent("    ", "  ")
	enc.SetEscapeHTML(false)
	n := 0
	for t := range turns {
		one.Reset()
		if err := enc.Encode(t); err != nil {
			return fmt.Errorf("write JSON: %w", err)
		}
		if n > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString("\n    ")
		bw.Write(bytes.TrimSuffix(one.Bytes(), []byte("\n")))
		n++
	}
	if n > 0 {
		bw.WriteString("\n  ")
	}
	bw.WriteByte(']')
	bw.Write(b[i+len(key):])
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write JSON: %w", err)
	}
	return nil
}

// inspectSession folds the journal c.resume names, read-only, with its
// skills found as --resume finds them. Looking needs no model, so none is
// started. When the journal does not fold, the wiring and the skipped
// lines still come back, for what can be said of them.
func inspectSession(c *common) (*harness.Session, *wiring, []string, error) {
	w, err := wireSkills(c)
	if err != nil {
		return nil, nil, nil, err
	}
	opts := harness.Options{Config: w.cfg, Catalog: w.catalog, Model: silentModel{}, Roots: rootDirs(w.catalog)}
	s, problems, err := harness.Inspect(w.journal, opts)
	return s, w, problems, err
}

// writeJSON prints what a command reports for machines: indented, with
// <, > and & as they are. who names the command in an error.
func writeJSON(w, stderr io.Writer, who string, v any) int {
	if err := encodeJSON(w, v); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", who, err)
		return 1
	}
	return 0
}

// encodeJSON writes v as writeJSON does, returning what went wrong.
func encodeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("write JSON: %w", err)
	}
	return nil
}

// printState prints a state view for people.
func printState(w io.Writer, v *view.StateView) {
	prof := v.Profile
	if v.ProfileAgent != "" {
		prof += " (" + v.ProfileAgent + ")" // what the session ran under
	} else if p, err := profile.Get(v.Profile); err == nil && p.Agent() != "" {
		prof += " (" + p.Agent() + ")" // a journal older than profile_agent
	}
	fmt.Fprintf(w, "session %s · model %s · profile %s · turn %d\n", v.SessionID, v.Model, prof, v.Turn)
	if v.Profile != rulebook.DefaultProfile {
		life := "off: activated text stays in the history"
		if v.Lifecycle {
			life = "on"
		}
		fmt.Fprintf(w, "context window %d tokens · lifecycle %s\n", v.ContextWindow, life)
	}
	fmt.Fprintf(w, "\nloaded (most recent first, max %d):\n", v.Limits.MaxLoadedSkills)
	if len(v.Loaded) == 0 {
		fmt.Fprintln(w, "  (none)")
	}
	for _, l := range v.Loaded {
		active := ""
		if l.Active {
			active = " · active"
		}
		fmt.Fprintf(w, "  %s %s · %s · by %s · %d tok%s\n", l.Name, orNoneStr(l.Version), l.ExecutionID, l.By, l.Tokens, active)
		if len(l.Tools) > 0 {
			fmt.Fprintf(w, "    tools: %s\n", strings.Join(l.Tools, ", "))
		}
		if len(l.State) > 0 && string(l.State) != "{}" {
			fmt.Fprintf(w, "    state: %s\n", l.State)
		}
	}
	for _, l := range v.Preloaded {
		fmt.Fprintf(w, "  preload %s %s · %s · %d tok\n", l.Name, orNoneStr(l.Version), l.ExecutionID, l.Tokens)
	}
	if ws := v.Workspace; ws != nil {
		fmt.Fprintf(w, "\nworkspace (%s): %s", ws.Mode, ws.Root)
		if ws.Source != "" && ws.Source != ws.Root {
			fmt.Fprintf(w, " · from %s", ws.Source)
		}
		fmt.Fprintf(w, " · commands: %s\n", firstOf(ws.Sandbox, "refused (no sandbox)"))
		if len(v.Files) == 0 {
			fmt.Fprintln(w, "  no file changed by a tool call")
		}
		for _, f := range v.Files {
			fmt.Fprintf(w, "  %s %s (%d bytes)\n", f.Op, f.Path, f.Size)
		}
	}
	fmt.Fprintln(w, "\ntools of the next request:")
	for _, t := range v.Tools {
		src := string(t.Source)
		if t.Skill != "" {
			src += " " + t.Skill
		}
		ver := ""
		if t.Version > 0 {
			ver = fmt.Sprintf("@%d", t.Version)
		}
		fmt.Fprintf(w, "  %s%s · %s · approval %s\n", t.Name, ver, src, t.Approval)
	}
	fmt.Fprintf(w, "\nwindow: %d of %d messages (cap %d)\n", v.Window.InWindow, v.Window.Messages, v.Window.Cap)
	if len(v.Turns) > 0 {
		fmt.Fprintln(w, "\nturns (Offered / Delivered / Loaded):")
	}
	for _, t := range v.Turns {
		fmt.Fprintf(w, "  %d · %s · offered %d · delivered %s · loaded %s\n", t.Turn, t.StopReason, len(t.Offered), dashJoin(t.Delivered), dashJoin(t.Loaded))
	}
	for name, st := range v.Stores {
		fmt.Fprintf(w, "\nstore %s: %s\n", name, st)
	}
	fmt.Fprintf(w, "\nnext request: %d tokens (%s)\n", v.Ledger.Total, v.Ledger.Tokenizer)
	for _, p := range v.Ledger.Parts {
		label := p.Kind
		if p.Skill != "" {
			label += " " + p.Skill
		}
		fmt.Fprintf(w, "  %-28s %7d\n", label, p.Tokens)
	}
	if v.Context != "" {
		fmt.Fprintf(w, "\n%s\n", v.Context)
	}
}

func orNoneStr(v string) string {
	if v == "" {
		return "(no version)"
	}
	return "v" + v
}

func dashJoin(names []string) string {
	if len(names) == 0 {
		return "—"
	}
	return strings.Join(names, ", ")
}
