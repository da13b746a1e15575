package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"skillet/harness/journal"
	"slices"
	"strings"

	"skillet/harness"
	"skillet/harness/chat"
	"skillet/harness/event"
	"skillet/harness/tokens"
	"skillet/harness/why"
	"skillet/skills"
)

const whyUsage = `usage: skillet why SKILL [flags]

Explains a skill's fate: its status on disk and in the config (invalid,
not enabled, shadowed, too large, over budget, pin mismatch), then, for
a session, turn by turn whether it was offered (rank k of n), left off
the list, delivered, loaded, refused, evicted or unloaded, and what the
model did instead; when its tools joined and left the request; and its
cost in tokens. The first line is the verdict in plain words. Nothing is
written. Without --session it says what disk and config say, and with
--message the rank the skill would have for that message. Exit status: 0,
1 when the session cannot be read (what can be explained still is), 2 on
a usage error or an unknown skill.

Flags:
`

// runWhy is `skillet why`.
func runWhy(args []string, stdout, stderr io.Writer) int {
	var c common
	fs := flag.NewFlagSet("skillet why", flag.ContinueOnError)
	c.registerSession(fs)
	fs.Var(&c.sets, "set", "`KEY=VALUE` for a limit the status is judged by, without a session (repeatable)")
	session := fs.String("session", "", "the session to explain: a session `ID`, folder or journal")
	turn := fs.Int("turn", 0, "say what became of the skill on turn `N` (default: the last turn)")
	message := fs.String("message", "", "also rank the skill for `TEXT`, as a fresh session's first request would")
	exact := fs.Bool("exact", false, "count every token with the session's tokenizer (o200k_base, slower to start) rather than estimate the counts the journal does not hold")
	asJSON := fs.Bool("json", false, "print the record as one JSON object (see the README)")
	fs.StringVar(&c.profile, "profile", "", "with --message: rank under the `NAME` of a profile (a session's own profile is the one it recorded)")
	fs.Var(&c.window, "context-window", "with --message and --profile: the model's context window in `TOKENS`")
	pos, code, done := parseInterleaved(fs, args, whyUsage, stdout, stderr)
	if done {
		return code
	}
	if len(pos) != 1 || pos[0] == "" {
		fmt.Fprintln(stderr, "skillet why: give one SKILL name")
		printUsage(fs, stderr, whyUsage)
		return 2
	}
	if *turn < 0 {
		fmt.Fprintf(stderr, "skillet why: --turn %d: want a turn number, 1 or more\n", *turn)
		return 2
	}
	name := pos[0]
	code = 0

	// the session's skills and config, else today's
	c.resume, c.noScan = *session, true
	w, err := wireSkills(&c)
	if err != nil && *session != "" {
		fmt.Fprintf(stderr, "skillet why: %s; explaining %s from disk and config alone\n", strings.TrimPrefix(err.Error(), "--resume: "), name)
		code = 1
		c.resume = ""
		w, err = wireSkills(&c)
	}
	if err != nil {
		return reportError(stderr, "skillet why", err)
	}
	defer w.close()
	printNotices(stderr, w)

	// Only the folders of that name are read: a skills root of a thousand
	// skills takes longer to parse than all the rest takes.
	cat := narrow(w, name)
	if _, err := cat.Refresh(); err != nil {
		fmt.Fprintf(stderr, "skillet why: reading %s: %v\n", name, err)
	}
	if cat.Get(name) == nil && len(cat.Shadowed()) == 0 || *message != "" {
		if _, err := w.catalog.Refresh(); err != nil {
			fmt.Fprintln(stderr, "skillet: reading skills:", err)
		}
		cat = w.catalog
	}

	var count why.Counter // an estimate: the tokenizer's tables take longer to load than the rest takes
	tok := tokens.NewTokenizer("")
	if *exact {
		count = tok
	}
	facts := why.FactsOf(cat, w.cfg.Refs(), name, count)
	// the journal streams through the explanation: a long session's
	// events are never all held
	x := why.NewExplainer(facts, w.cfg.Session, count)
	var names sessionNames
	var skipped []string
	journal := w.journal
	if journal != "" {
		journal, skipped, err = streamJournal(journal, func(e event.Event) {
			names.add(e)
			x.Add(e)
		})
		for _, p := range skipped {
			fmt.Fprintf(stderr, "skillet why: %s: %s was skipped\n", journal, p)
		}
		if err != nil {
			fmt.Fprintf(stderr, "skillet why: %v; explaining %s from disk and config alone\n", err, name)
			x, names, code = why.NewExplainer(facts, w.cfg.Session, count), sessionNames{}, 1
		}
	}

	if known := why.Names(cat); !slices.Contains(known, name) && !names.seen[name] {
		msg := fmt.Sprintf("skillet why: no skill named %q", name)
		all := append(known, names.list...)
		if near := harness.Closest(name, all, 5); len(near) > 0 {
			msg += "; the closest are: " + strings.Join(near, ", ")
		} else {
			msg += "; " + knownWords(all)
		}
		fmt.Fprintln(stderr, msg)
		return 2
	}

	rec := x.Record()
	for _, p := range skipped {
		rec.Skipped = append(rec.Skipped, journal+": "+p)
	}
	if *message != "" {
		would, err := rank(w, tok, name, *message, c.profile, c.window.n)
		if err != nil {
			fmt.Fprintf(stderr, "skillet why: rank for --message: %v\n", err)
			code = 1
		} else {
			rec.Would = would
		}
	}
	if *turn > 0 && rec.Find(*turn) == nil {
		fmt.Fprintf(stderr, "skillet why: --turn %d: the session has %d turns\n", *turn, len(rec.Turns))
		code = 1
	}
	rec.SetVerdict(*turn)
	if *asJSON {
		if c := writeJSON(stdout, stderr, "skillet why", rec); c != 0 {
			return c
		}
		return code
	}
	why.Print(stdout, rec, *turn)
	return code
}

// knownWords names the known skills, sorted, the first twenty of a long
// list, for a name close to none of them.
func knownWords(names []string) string {
	names = slices.Compact(slices.Sorted(slices.Values(names)))
	switch n := len(names); {
	case n == 0:
		return "no skill is known here (give --skills, or --session)"
	case n > 20:
		return fmt.Sprintf("the known skills are: %s and %d more (skillet validate lists them)", strings.Join(names[:20], ", "), n-20)
	}
	return "the known skills are: " + strings.Join(names, ", ")
}

// streamJournal hands each event of a session (its folder or journal,
// which wireSkills found begins with session_start) to each, without the
// request bodies and raw replies an explanation does not need, and names
// the journal.
func streamJournal(path string, each func(event.Event)) (string, []string, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		path = filepath.Join(path, harness.JournalFile)
	}
	f, err := journal.OpenRegular(path)
	if err != nil {
		return path, nil, fmt.Errorf("read session %s: %w", path, err)
	}
	defer f.Close()
	skipped, err := journal.StreamLite(f, each)
	if err != nil {
		return path, skipped, fmt.Errorf("read session %s: %w", path, err)
	}
	return path, skipped, nil
}

// narrow returns a catalog of the folders named like the skill in each of
// the wiring's roots, in the same order, with the same tool folders.
func narrow(w *wiring, name string) *skills.Catalog {
	var roots []skills.Root
	tools := slices.Clone(w.cfg.ToolsDirs)
	for _, r := range w.catalog.Roots() {
		dir := filepath.Join(r.Dir, name)
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() && filepath.Base(dir) == name {
			roots = append(roots, skills.Root{Dir: dir, Label: r.Label, Builtin: r.Builtin})
		}
		// a root's tools/ folder holds workspace tools (see skills.Root)
		ws := filepath.Join(r.Dir, "tools")
		if fi, err := os.Stat(ws); err == nil && fi.IsDir() && !hasSkillFile(ws) {
			tools = append(tools, ws)
		}
	}
	return skills.NewCatalog(roots, tools)
}

func hasSkillFile(dir string) bool {
	for _, f := range []string{"SKILL.md", "skill.md"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			return true
		}
	}
	return false
}

// sessionNames are the skills a session listed, left off or loaded, in
// the order first named.
type sessionNames struct {
	seen map[string]bool
	list []string
}

func (n *sessionNames) add(e event.Event) {
	put := func(names ...string) {
		for _, name := range names {
			if n.seen == nil {
				n.seen = map[string]bool{}
			}
			if !n.seen[name] {
				n.seen[name] = true
				n.list = append(n.list, name)
			}
		}
	}
	switch e := e.(type) {
	case *event.TurnEnd:
		put(e.Offered...)
		put(e.LeftOff...)
		put(e.Delivered...)
	case *event.SkillLoaded:
		put(e.Skill)
	}
}

// rank opens a fresh session in memory and reads the list of its first
// request for the message: the engine's own ranking. The model it talks to
// answers nothing and calls no tool.
func rank(w *wiring, tok *tokens.Tokenizer, name, message, profileName string, window int) (*why.Would, error) {
	var call *event.ModelCall
	s, err := harness.New(harness.Options{Config: w.cfg, Catalog: w.catalog, Model: silentModel{}, ModelName: "skillet-why", Tokenizer: tok, Profile: profileName, ContextWindow: window,
		OnEvent: func(e event.Event) {
			if mc, ok := e.(*event.ModelCall); ok && call == nil {
				call = mc
			}
		}})
	if err != nil {
		return nil, err
	}
	defer s.Close()
	if _, err := s.Turn(context.Background(), message); err != nil {
		return nil, err
	}
	out := &why.Would{Message: message}
	if call == nil {
		return out, nil
	}
	set := s.Settings()
	of := len(call.Offered) + len(call.LeftOff)
	if i := slices.Index(call.Offered, name); i >= 0 {
		out.Offered = &why.Rank{Rank: i + 1, Of: of, Ranked: len(call.LeftOff) > 0}
		if i < len(call.Scores) {
			out.Offered.Score = &call.Scores[i]
		}
	} else if slices.Contains(call.LeftOff, name) {
		out.LeftOff = &why.LeftOff{Of: of, ListSize: set.ListSize, Above: call.Offered}
	}
	return out, nil
}

// silentModel answers every request with a short text and no tool call,
// so a session can compose a request (why --message), or be read (show,
// offered), without a model.
type silentModel struct{}

func (silentModel) Complete(ctx context.Context, req *chat.Request, on func(chat.StreamEvent)) (*chat.Reply, error) {
	return &chat.Reply{Message: chat.Message{Role: chat.RoleAssistant, Content: "(ranked only)"}, FinishReason: "stop"}, nil
}
