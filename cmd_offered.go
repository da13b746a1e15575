package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"skillet/harness"
	"skillet/harness/config"
	"skillet/harness/profile"
	"skillet/harness/view"
	"skillet/skills"
)

var offeredUsage = `usage: skillet offered [--profile NAME|all] [--context-window TOKENS] [--model NAME] [--set bundled_skills=false] [--usage FILE] [--json] [--config FILE] [DIR...]

Shows, without a model, what each agent's way of presenting skills leaves
of every skill: its catalogue state (full, cut at N characters, name only,
omitted) and why, and the catalogue text as the model gets it.

A DIR is a folder of skill folders. With no DIR the folders Skillet reads
are used (the skills_dirs of skillet.toml, ./.agents/skills,
./.claude/skills, ~/.agents/skills, ~/.claude/skills, else the built-in
samples).

Profiles: ` + strings.Join(profile.Names(), ", ") + `; all (the default)
prints one table of skills × profiles.

Each profile lists what its agent accepts: a skill the Agent Skills spec
refuses (a name that is not its folder's, a description over 1,024
characters, a metadata list…) but the agent still lists is shown with a
warning; skillet validate stays the spec's judge. The skills each agent
ships with are listed too, by name and measured size (placeholder text),
and share the budget; --set bundled_skills=false (or bundled_skills =
false in the [session] table of skillet.toml) leaves them out.

--model NAME is the model Claude Code's budget is computed for (bytes a
token and context window); default: skillet.toml [model] name, else 4
bytes a token at a 200,000-token window.

--usage FILE gives how often each skill was invoked, for Claude Code's
least-used-first rule: {"NAME": {"count": 3, "last_used": "2026-09-01T12:00:00Z"}}.
Without it every skill counts as never used.

Exit status: 0 when at least one skill is enabled, 1 when none is (what was
found is still listed, with why it was left out), 2 on a usage error.

`

// offeredJSON is the --json document.
type offeredJSON struct {
	Paths []string `json:"paths"`
	// ContextWindow is the --context-window given, 0 for each profile's
	// default.
	ContextWindow int `json:"context_window"`
	// Model is the model the budgets were computed for, "" for none.
	Model    string           `json:"model"`
	Notices  []string         `json:"notices"`
	Profiles []offeredProfile `json:"profiles"`
	LeftOut  []offeredLeftOut `json:"left_out"`
}

type offeredProfile struct {
	Name string `json:"name"`
	// Agent is the agent version the profile reproduces.
	Agent string `json:"agent,omitempty"`
	// Window is the context window the profile worked with, 0 when its
	// catalogue does not depend on one.
	Window   int                 `json:"window_tokens"`
	Budget   *profile.Budget     `json:"budget"`
	Blocks   []profile.Block     `json:"blocks"`
	Entries  []profile.Entry     `json:"entries"`
	Bundled  []profile.Entry     `json:"bundled"`
	Warnings []string            `json:"warnings"`
	Tool     *profile.Tool       `json:"tool"`
	Persist  profile.Persistence `json:"persistence"`
	// ListSize is Skillet's list_size (R10), for the skillet profile.
	ListSize int `json:"list_size,omitempty"`
}

// offeredLeftOut is a skill no profile sees, and why.
type offeredLeftOut struct {
	Name   string `json:"name"`
	Dir    string `json:"dir"`
	Reason string `json:"reason"`
}

// positiveInt is a flag that remembers being set, so 0 can be refused.
type positiveInt struct {
	n   int
	set bool
}

func (p *positiveInt) String() string { return fmt.Sprint(p.n) }
func (p *positiveInt) Set(v string) error {
	var n int
	if _, err := fmt.Sscan(v, &n); err != nil || fmt.Sprint(n) != strings.TrimSpace(v) {
		return fmt.Errorf("want a whole number of tokens, not %q", v)
	}
	p.n, p.set = n, true
	return nil
}

// runOffered is `skillet offered`: it returns the exit status.
func runOffered(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("skillet offered", flag.ContinueOnError)
	name := fs.String("profile", "all", "the `NAME` of a profile, or all")
	var win positiveInt
	fs.Var(&win, "context-window", "the model's context window in `TOKENS` (default: each profile's own)")
	asJSON := fs.Bool("json", false, "print one JSON document")
	config := fs.String("config", "", "`FILE` skillet.toml to use (default ./skillet.toml when present)")
	usageFile := fs.String("usage", "", "`FILE` of invocation counts per skill (JSON), for Claude Code's ranking")
	model := fs.String("model", "", "the model `NAME` Claude Code's budget is computed for (default: skillet.toml [model] name)")
	var sets listFlag
	fs.Var(&sets, "set", "`KEY=VALUE` of a setting (repeatable): bundled_skills=false leaves the agents' own skills out")
	dirs, code, done := parseInterleaved(fs, args, offeredUsage, stdout, stderr)
	if done {
		return code
	}
	profiles := profile.All()
	if *name != "all" {
		p, err := profile.Get(*name)
		if err != nil {
			fmt.Fprintf(stderr, "skillet offered: --profile: %v, or all\n", err)
			return 2
		}
		profiles = []profile.Profile{p}
	}
	if win.set && win.n <= 0 {
		fmt.Fprintf(stderr, "skillet offered: --context-window %d: want a positive number of tokens, such as 200000\n", win.n)
		return 2
	}
	for _, d := range dirs {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			fmt.Fprintf(stderr, "skillet offered: %s: not a folder\n", d)
			return 2
		}
		if _, err := os.Stat(filepath.Join(d, skills.SkillFile)); err == nil {
			// a root holds skill folders; this is one
			fmt.Fprintf(stderr, "skillet offered: %s is a skill folder: give the folder that holds it (%s)\n", d, filepath.Dir(filepath.Clean(d)))
			return 2
		}
	}

	usage, err := readUsage(*usageFile)
	if err != nil {
		fmt.Fprintf(stderr, "skillet offered: %v\n", err)
		return 2
	}
	w, err := wireSkills(&common{config: *config, skills: dirs, sets: sets})
	if err != nil {
		fmt.Fprintf(stderr, "skillet offered: %v\n", err)
		return 2
	}
	if *model == "" {
		*model = w.cfg.Model.Name
	}
	rep, err := offered(w, profiles, win.n, *model, usage)
	if err != nil {
		fmt.Fprintf(stderr, "skillet offered: %v\n", err)
		return 2
	}
	rep.Paths = rootDirs(w.catalog)

	if *asJSON {
		if code := writeJSON(stdout, stderr, "skillet offered", rep); code != 0 {
			return code
		}
	} else {
		for _, n := range rep.Notices {
			fmt.Fprintf(stderr, "skillet: %s\n", n)
		}
		if len(profiles) == 1 {
			printProfile(stdout, rep.Profiles[0])
		} else {
			printTable(stdout, rep)
		}
		printLeftOut(stdout, rep.LeftOut)
	}
	if len(rep.Profiles) == 0 || len(rep.Profiles[0].Entries) == 0 {
		return 1
	}
	return 0
}

// offered composes every profile's catalogue of the enabled skills. The
// engine decides which skills are enabled (R18, R19) and composes
// Skillet's own list (R10); the other profiles take the same skills.
func offered(w *wiring, profiles []profile.Profile, window int, model string, usage map[string]profile.Usage) (*offeredJSON, error) {
	s, err := harness.New(harness.Options{Config: w.cfg, Catalog: w.catalog, Model: silentModel{}, ModelName: "none"})
	if err != nil {
		return nil, err
	}
	defer s.Close()
	snap := s.Snapshot()
	// the session's own notices name invalid and unselected skills, which
	// left_out says with the reason
	rep := &offeredJSON{ContextWindow: window, Model: model, Notices: append([]string{}, w.notices...), Profiles: []offeredProfile{}, LeftOut: []offeredLeftOut{}}
	for _, p := range profiles {
		win := window
		if len(profiles) > 1 && p.DefaultWindow() == 0 {
			win = 0 // a window for all profiles is meant for the ones with a budget
		}
		rep.Notices = append(rep.Notices, profile.Notices(p, model, win)...)
	}

	status := map[string]view.SkillStatus{}
	for _, st := range snap.Skills {
		if st.Shadowed {
			rep.LeftOut = append(rep.LeftOut, offeredLeftOut{Name: st.Name, Dir: st.Dir, Reason: "shadowed by the skill of the same name in an earlier folder"})
			continue
		}
		status[st.Name] = st
	}
	label := map[string]string{}
	for _, r := range w.catalog.Roots() {
		label[r.Dir] = r.Label
	}
	el := &profile.EngineList{ListSize: snap.Limits.ListSize, LeftOff: snap.LeftOff}
	for _, part := range snap.Parts {
		if part.Kind == "list" {
			el.Text = part.Text
			el.Offered = append(el.Offered, part.Names...)
		}
	}
	for _, t := range snap.Tools {
		if t.Name == "load_skill" {
			el.Tool = &profile.Tool{Name: t.Name, Description: t.Description, Parameters: t.Parameters}
		}
	}
	var enabled []profile.Skill
	for _, sk := range w.catalog.All() {
		st := status[sk.Name]
		switch {
		case !sk.Valid() && sk.Readable() && len(w.cfg.Skills) == 0:
			// the spec refuses it but some agents list it: each profile
			// says what its agent does
			ps := profileSkill(sk, label[sk.Root])
			ps.Usage = usage[sk.Name]
			enabled = append(enabled, ps)
			continue
		case !sk.Valid():
			rep.LeftOut = append(rep.LeftOut, offeredLeftOut{Name: sk.Name, Dir: sk.Dir, Reason: "invalid: " + problemList(sk.Problems)})
			continue
		case !st.Enabled:
			reason := "not enabled"
			if len(st.Problems) > 0 {
				reason += ": " + problemList(st.Problems)
			} else if len(w.cfg.Skills) > 0 {
				reason += ": " + config.File + " names the skills to enable and not this one (R19)"
			}
			rep.LeftOut = append(rep.LeftOut, offeredLeftOut{Name: sk.Name, Dir: sk.Dir, Reason: reason})
			continue
		}
		if st.Preload {
			el.Preloaded = append(el.Preloaded, sk.Name)
		}
		ps := profileSkill(sk, label[sk.Root])
		ps.Usage = usage[sk.Name]
		enabled = append(enabled, ps)
	}
	roots := rootDirs(w.catalog)
	for _, p := range profiles {
		in := profile.Input{Skills: enabled, ContextWindow: window, Roots: roots, Engine: el, Model: model, NoBundled: !w.cfg.Session.Bundled()}
		cat := p.Catalogue(in)
		used := window
		if used == 0 {
			used = p.DefaultWindow()
		}
		if p.DefaultWindow() == 0 {
			used = 0 // the profile's catalogue does not depend on it
		}
		if p.Name() == "claude-code" && window == 0 {
			used = profile.ClaudeWindow(model)
		}
		op := offeredProfile{Name: p.Name(), Agent: cat.Agent, Window: used, Budget: cat.Budget, Blocks: nonNilBlocks(cat.Blocks),
			Entries: cat.Entries, Bundled: nonNilEntries(cat.Bundled), Warnings: nonNilStrings(cat.Warnings), Tool: p.Tool(in), Persist: p.Persistence()}
		if p.Name() == "skillet" {
			op.ListSize = el.ListSize
		}
		rep.Profiles = append(rep.Profiles, op)
	}
	return rep, nil
}

// readUsage reads --usage: invocation counts by skill name.
func readUsage(path string) (map[string]profile.Usage, error) {
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--usage: %w", err)
	}
	var u map[string]profile.Usage
	if err := json.Unmarshal(data, &u); err != nil {
		return nil, fmt.Errorf("--usage %s: want {\"NAME\": {\"count\": N, \"last_used\": \"2026-09-01T12:00:00Z\"}}: %w", path, err)
	}
	for name, v := range u {
		if v.Count < 0 {
			return nil, fmt.Errorf("--usage %s: %s: count %d is negative", path, name, v.Count)
		}
	}
	return u, nil
}

// profileSkill is a parsed skill as profiles take it. Bodies and file
// lists are left out: a catalogue needs neither.
func profileSkill(sk *skills.Skill, rootLabel string) profile.Skill {
	scope := "repo"
	if rootLabel == skills.LabelUser {
		scope = "user"
	}
	ps := harness.ProfileSkill(sk)
	ps.Scope = scope
	return ps
}

func problemList(ps []skills.Problem) string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Field + ": " + p.Message
	}
	return strings.Join(out, "; ")
}

func nonNilBlocks(b []profile.Block) []profile.Block {
	if b == nil {
		return []profile.Block{}
	}
	return b
}

func nonNilEntries(e []profile.Entry) []profile.Entry {
	if e == nil {
		return []profile.Entry{}
	}
	return e
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// cell is an entry's state in a few characters.
func cell(e profile.Entry) string {
	switch e.State {
	case profile.Truncated:
		return fmt.Sprintf("cut %d/%d", e.Kept, e.Length)
	case profile.NameOnly:
		return "name only"
	}
	return string(e.State)
}

func budgetLine(p offeredProfile) string {
	var b strings.Builder
	b.WriteString(p.Name)
	if p.Agent != "" {
		fmt.Fprintf(&b, " (%s)", p.Agent)
	}
	switch {
	case p.Budget != nil:
		fmt.Fprintf(&b, ": budget %d %s (%s), used %d", p.Budget.Limit, p.Budget.Unit, p.Budget.Rule, p.Budget.Used)
	case p.Name == "skillet":
		fmt.Fprintf(&b, ": a list of at most list_size = %d skills, ranked against the latest user message (R10)", p.ListSize)
	default:
		b.WriteString(": no listing budget")
	}
	counts := map[profile.State]int{}
	for _, e := range p.Entries {
		counts[e.State]++
	}
	fmt.Fprintf(&b, "; %d full, %d cut, %d name only, %d omitted", counts[profile.Full], counts[profile.Truncated], counts[profile.NameOnly], counts[profile.Omitted])
	if n := len(p.Bundled); n > 0 {
		fmt.Fprintf(&b, "; and %d bundled with the agent", n)
	}
	return b.String()
}

func printTable(out io.Writer, rep *offeredJSON) {
	for _, p := range rep.Profiles {
		fmt.Fprintln(out, budgetLine(p))
		for _, w := range p.Warnings {
			fmt.Fprintf(out, "  warning: %s\n", w)
		}
	}
	if len(rep.Profiles) == 0 || len(rep.Profiles[0].Entries) == 0 {
		fmt.Fprintln(out, "no skill is enabled")
		return
	}
	fmt.Fprintln(out)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	head := []string{"SKILL"}
	for _, p := range rep.Profiles {
		head = append(head, strings.ToUpper(p.Name))
	}
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for i, e := range rep.Profiles[0].Entries {
		row := []string{e.Name}
		for _, p := range rep.Profiles {
			row = append(row, cell(p.Entries[i]))
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	tw.Flush()
	fmt.Fprintln(out, "\nskillet offered --profile NAME shows why, and the text the model gets.")
}

func printProfile(out io.Writer, p offeredProfile) {
	fmt.Fprintln(out, budgetLine(p))
	for _, w := range p.Warnings {
		fmt.Fprintf(out, "warning: %s\n", w)
	}
	if len(p.Entries) == 0 {
		fmt.Fprintln(out, "no skill is enabled")
		return
	}
	fmt.Fprintln(out)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SKILL\tSTATE\tRANK\tWHY")
	for _, e := range p.Entries {
		rank := "-"
		if e.Rank > 0 {
			rank = fmt.Sprint(e.Rank)
		}
		why := e.Reason
		if e.Warning != "" {
			why += " (warning: " + e.Warning + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", e.Name, cell(e), rank, why)
	}
	for _, e := range p.Bundled {
		rank := "-"
		if e.Rank > 0 {
			rank = fmt.Sprint(e.Rank)
		}
		fmt.Fprintf(tw, "%s (bundled)\t%s\t%s\t%s\n", e.Name, cell(e), rank, e.Reason)
	}
	tw.Flush()
	for _, b := range p.Blocks {
		fmt.Fprintf(out, "\n--- %s ---\n%s\n", b.Placement, b.Text)
	}
	if p.Tool != nil {
		params, _ := json.Marshal(p.Tool.Parameters)
		fmt.Fprintf(out, "\n--- activation tool %s ---\n%s\nparameters: %s\n", p.Tool.Name, p.Tool.Description, params)
	} else {
		fmt.Fprintln(out, "\n--- no activation tool ---")
	}
}

func printLeftOut(out io.Writer, left []offeredLeftOut) {
	if len(left) == 0 {
		return
	}
	fmt.Fprintf(out, "\nleft out before any profile (%d):\n", len(left))
	for _, l := range left {
		fmt.Fprintf(out, "  %s (%s): %s\n", l.Name, l.Dir, l.Reason)
	}
}
