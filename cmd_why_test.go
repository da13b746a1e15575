package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"skillet/harness/journal"
	"strings"
	"testing"

	"skillet/harness/event"
	"skillet/harness/why"
)

// writeWhySkill writes root/name/SKILL.md with the frontmatter lines given
// after name and description.
func writeWhySkill(t *testing.T, root, name, desc, extra, body string) string {
	t.Helper()
	dir := filepath.Join(root, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	front := "---\nname: " + name + "\n"
	if desc != "" {
		front += "description: " + desc + "\n"
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(front+extra+"---\n"+body+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// writeTool writes a response tool into a skill's own tools/ folder.
func writeTool(t *testing.T, skillDir, name string) {
	t.Helper()
	dir := filepath.Join(skillDir, "tools")
	os.MkdirAll(dir, 0o755)
	def := "name: " + name + "\nversion: 1\ndescription: Says which fruit " + name + " would pick.\nparameters:\n  type: object\n  properties: {}\n  additionalProperties: false\nresponse: |\n  {\"picked\": true}\n"
	if err := os.WriteFile(filepath.Join(dir, name+".yaml"), []byte(def), 0o644); err != nil {
		t.Fatal(err)
	}
}

// fruitSkills writes three skills that share no words.
func fruitSkills(t *testing.T, tmp string) string {
	t.Helper()
	root := filepath.Join(tmp, "skills")
	a := writeWhySkill(t, root, "alpha", "Plan apple orchards and apple harvests.", "tools:\n  - name: pick_apple\n  - name: peel_apple\n", "# Alpha\n\nPick apples carefully.")
	writeTool(t, a, "pick_apple")
	writeTool(t, a, "peel_apple")
	writeWhySkill(t, root, "beta", "Build banana boats for banana rivers.", "", "# Beta\n\nFloat the bananas.")
	writeWhySkill(t, root, "gamma", "Bake cherry cakes with cherry jam.", "", "# Gamma\n\nBake.")
	return root
}

// whyJSON runs `skillet why --json` and decodes its record.
func whyJSON(t *testing.T, args ...string) (*why.Record, string) {
	t.Helper()
	code, out, errOut := runCmd(t, "", append([]string{"why", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("why %v: exit %d\n%s\n%s", args, code, out, errOut)
	}
	var r why.Record
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("why --json is not a record: %v\n%s", err, out)
	}
	return &r, errOut
}

// whyText runs `skillet why` and returns its words.
func whyText(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errOut := runCmd(t, "", append([]string{"why"}, args...)...)
	if code != 0 {
		t.Fatalf("why %v: exit %d\n%s\n%s", args, code, out, errOut)
	}
	return out
}

func runTurns(t *testing.T, args ...string) {
	t.Helper()
	if code, out, errOut := runCmd(t, "", append([]string{"run", "--approve-all"}, args...)...); code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", code, out, errOut)
	}
}

func whyFirstLine(s string) string { return strings.SplitN(s, "\n", 2)[0] }

func TestWhyLeftOffByListSizeAndRankScores(t *testing.T) {
	tmp := isolate(t)
	root := fruitSkills(t, tmp)
	runTurns(t, "--skills", root, "--set", "list_size=1", "tell me about banana boats")
	id := onlySession(t, tmp)

	r, _ := whyJSON(t, "gamma", "--session", id)
	if len(r.Turns) != 1 || r.Turns[0].LeftOff == nil {
		t.Fatalf("gamma should be left off on turn 1: %+v", r.Turns)
	}
	lo := r.Turns[0].LeftOff
	if lo.ListSize != 1 || lo.Of != 3 || !reflect.DeepEqual(lo.Above, []string{"beta"}) {
		t.Errorf("left off: %+v", lo)
	}
	text := whyText(t, "gamma", "--session", id)
	if want := "gamma: left off the list on turn 1: list_size is 1, and the 1 skill listed of 3 ranked above it"; whyFirstLine(text) != want {
		t.Errorf("verdict %q, want it to start %q", whyFirstLine(text), want)
	}
	if !strings.Contains(text, "[entry 1] left off the list") {
		t.Errorf("timeline lacks the left-off step:\n%s", text)
	}

	// the listed skill carries the score the engine ranked it by
	b, _ := whyJSON(t, "beta", "--session", id)
	off := b.Turns[0].Offered
	if off == nil || off.Rank != 1 || !off.Ranked || off.Score == nil || *off.Score <= 0 || !b.Turns[0].Loaded {
		t.Fatalf("beta: %+v", b.Turns[0])
	}
	if v := b.Verdict; !strings.HasPrefix(v, "offered at rank 1 of 3 (score ") || !strings.HasSuffix(v, "on turn 1 and loaded by the model") {
		t.Errorf("verdict %q", v)
	}
	if b.Cost.ContextCalls == 0 || b.Cost.ContextTotal == 0 || b.Cost.ListEntry == 0 {
		t.Errorf("cost: %+v", b.Cost)
	}
}

func TestWhyTooLargeEveryLoadRefused(t *testing.T) {
	tmp := isolate(t)
	root := fruitSkills(t, tmp)
	writeWhySkill(t, root, "huge", "Write huge essays.", "", strings.Repeat("Write long sentences. ", 150))
	runTurns(t, "--skills", root, "--set", "max_skill_chars=2000", "load huge")
	id := onlySession(t, tmp)

	r, _ := whyJSON(t, "huge", "--session", id)
	if r.Status[0].Code != why.StatusTooLarge || !strings.Contains(r.Status[0].Detail, "over max_skill_chars (2000)") {
		t.Errorf("status: %+v", r.Status)
	}
	t1 := r.Turns[0]
	if len(t1.Refused) != 1 || !strings.Contains(t1.Refused[0], "over max_skill_chars (2000)") || t1.Loaded {
		t.Errorf("turn 1: %+v", t1)
	}
	// the characters counted from disk are the engine's own count
	chars := strings.Fields(r.Status[0].Detail)[0]
	if !strings.Contains(t1.Refused[0], "huge is "+chars+" characters") {
		t.Errorf("status says %s characters, the engine's refusal %q", chars, t1.Refused[0])
	}
	if !strings.HasPrefix(r.Verdict, "too large to ever load: ") || !strings.Contains(r.Verdict, "offered at rank") || !strings.Contains(r.Verdict, "its load was refused on turn 1: huge is") {
		t.Errorf("verdict %q", r.Verdict)
	}
	// without a session, disk and config say as much
	none, _ := whyJSON(t, "huge", "--skills", root, "--set", "max_skill_chars=2000")
	if none.Status[0].Code != why.StatusTooLarge || len(none.Turns) != 0 || !strings.HasPrefix(none.Verdict, "too large to ever load") {
		t.Errorf("without a session: %+v", none)
	}
}

func TestWhyInvalidAndShadowed(t *testing.T) {
	tmp := isolate(t)
	root := fruitSkills(t, tmp)
	writeWhySkill(t, root, "broken", "", "", "no description")
	other := filepath.Join(tmp, "other")
	writeWhySkill(t, other, "beta", "An older beta.", "", "old")

	r, _ := whyJSON(t, "broken", "--skills", root)
	if len(r.Status) == 0 || r.Status[0].Code != why.StatusInvalid || !strings.Contains(r.Status[0].Detail, "description") {
		t.Fatalf("status: %+v", r.Status)
	}
	if !strings.HasPrefix(r.Verdict, "invalid (") {
		t.Errorf("verdict %q", r.Verdict)
	}
	s, _ := whyJSON(t, "beta", "--skills", root, "--skills", other)
	var shadow *why.Status
	for i := range s.Status {
		if s.Status[i].Code == why.StatusShadowed {
			shadow = &s.Status[i]
		}
	}
	if shadow == nil || !strings.Contains(shadow.Detail, filepath.Join(other, "beta")+" is shadowed by "+filepath.Join(root, "beta")) {
		t.Errorf("shadowed: %+v", s.Status)
	}
}

func TestWhyNotEnabled(t *testing.T) {
	tmp := isolate(t)
	root := fruitSkills(t, tmp)
	cfg := filepath.Join(tmp, "skillet.toml")
	os.WriteFile(cfg, []byte("skills_dirs = [\"skills\"]\n\n[[skills]]\nname = \"alpha\"\n\n[[skills]]\nname = \"gamma\"\n"), 0o644)
	runTurns(t, "--config", cfg, "tell me about banana boats")
	id := onlySession(t, tmp)
	r, _ := whyJSON(t, "beta", "--session", id)
	if r.Status[0].Code != why.StatusNotEnabled {
		t.Fatalf("status: %+v", r.Status)
	}
	if r.Turns[0].Offered != nil || r.Turns[0].LeftOff != nil {
		t.Errorf("a skill not enabled is never listed: %+v", r.Turns[0])
	}
	if want := "not enabled: the config's [[skills]] names other skills, not this one; not on the list on turn 1"; r.Verdict != want {
		t.Errorf("verdict %q, want %q", r.Verdict, want)
	}
	_ = root
}

func TestWhyEvictedAndAnotherLoaded(t *testing.T) {
	tmp := isolate(t)
	root := fruitSkills(t, tmp)
	runTurns(t, "--skills", root, "--set", "max_loaded_skills=1", "load alpha", "load beta")
	id := onlySession(t, tmp)

	r, _ := whyJSON(t, "alpha", "--session", id)
	if !r.Turns[0].Loaded || r.Turns[1].EvictedBy != "beta" {
		t.Fatalf("turns: %+v", r.Turns)
	}
	if want := "evicted by the load of beta on turn 2 (max_loaded_skills is 1); still loaded at the start of turn 2 (loaded on turn 1)"; r.Verdict != want {
		t.Errorf("verdict %q", r.Verdict)
	}
	if len(r.Tools) != 2 {
		t.Fatalf("tools: %+v", r.Tools)
	}
	for _, sp := range r.Tools {
		if sp.Joined != 1 || sp.Left != 2 || sp.Why != "evicted by the load of beta" {
			t.Errorf("tool span %+v", sp)
		}
	}
	if r.Cost.SchemaTokens == 0 || len(r.Cost.SchemaByTools) != 2 {
		t.Errorf("schemas: %+v", r.Cost)
	}
	// gamma, offered both turns, saw the model load the others
	g, _ := whyJSON(t, "gamma", "--session", id, "--turn", "1")
	if in := g.Turns[0].Instead; in == nil || in.Kind != "loaded" || !reflect.DeepEqual(in.Skills, []string{"alpha"}) {
		t.Errorf("instead: %+v", g.Turns[0].Instead)
	}
	if want := "offered at rank 3 of 3 (all enabled skills fit the list, in config order) on turn 1; the model loaded alpha instead"; g.Verdict != want {
		t.Errorf("verdict %q, want %q", g.Verdict, want)
	}
	text := whyText(t, "gamma", "--session", id, "--turn", "2")
	if !strings.HasPrefix(text, "gamma: offered at rank 3 of 3") || !strings.Contains(text, "the model loaded beta instead") || strings.Contains(text, "  1 · ") {
		t.Errorf("--turn 2 text:\n%s", text)
	}
}

func TestWhyUnloadedAndToolRemovedByAnEdit(t *testing.T) {
	tmp := isolate(t)
	root := fruitSkills(t, tmp)
	runTurns(t, "--skills", root, "load alpha")
	id := onlySession(t, tmp)
	// an edit drops one tool; the next turn renders the change
	writeWhySkill(t, root, "alpha", "Plan apple orchards and apple harvests.", "tools:\n  - name: pick_apple\n", "# Alpha\n\nPick apples gently.")
	runTurns(t, "--skills", root, "--resume", id, "hello")
	r, _ := whyJSON(t, "alpha", "--session", id)
	var peel, pick *why.ToolSpan
	for i := range r.Tools {
		switch r.Tools[i].Tool {
		case "peel_apple":
			peel = &r.Tools[i]
		case "pick_apple":
			pick = &r.Tools[i]
		}
	}
	if peel == nil || peel.Left == 0 || peel.Why != "an edit of SKILL.md removed it from tools:" || pick == nil || pick.Left != 0 {
		t.Fatalf("tools: %+v", r.Tools)
	}

	// then the skill turns invalid on disk: it is unloaded, and why says so
	writeWhySkill(t, root, "alpha", "", "", "no description any more")
	runTurns(t, "--skills", root, "--resume", id, "hello again")
	r, _ = whyJSON(t, "alpha", "--session", id)
	var unloaded []string
	for _, tr := range r.Turns {
		unloaded = append(unloaded, tr.Unloaded...)
	}
	if !reflect.DeepEqual(unloaded, []string{"it turned invalid on disk"}) {
		t.Errorf("unloaded: %v in %+v", unloaded, r.Turns)
	}
	if r.Status[0].Code != why.StatusInvalid || !strings.HasPrefix(r.Verdict, "invalid (") {
		t.Errorf("status %+v, verdict %q", r.Status, r.Verdict)
	}
	for _, sp := range r.Tools {
		if sp.Tool == "pick_apple" && (sp.Left == 0 || sp.Why != "unloaded: it turned invalid on disk") {
			t.Errorf("pick_apple span: %+v", sp)
		}
	}
	text := whyText(t, "alpha", "--session", id)
	if os.Getenv("WHY_SHOW") != "" {
		t.Log(text)
	}
	if !strings.Contains(text, "pick_apple · joined on turn 1 · left on turn") || !strings.Contains(text, "unloaded: it turned invalid on disk") {
		t.Errorf("text:\n%s", text)
	}
}

func TestWhyRankForAMessageWithoutASession(t *testing.T) {
	tmp := isolate(t)
	root := fruitSkills(t, tmp)
	b, _ := whyJSON(t, "beta", "--skills", root, "--set", "list_size=1", "--message", "banana boats please")
	if b.Would == nil || b.Would.Offered == nil || b.Would.Offered.Rank != 1 || b.Would.Offered.Score == nil {
		t.Fatalf("would: %+v", b.Would)
	}
	if !strings.HasPrefix(b.Verdict, "would be offered at rank 1 of 3 (score ") {
		t.Errorf("verdict %q", b.Verdict)
	}
	a, _ := whyJSON(t, "alpha", "--skills", root, "--set", "list_size=1", "--message", "banana boats please")
	if a.Would == nil || a.Would.LeftOff == nil || !reflect.DeepEqual(a.Would.LeftOff.Above, []string{"beta"}) {
		t.Fatalf("would: %+v", a.Would)
	}
	if want := "would be left off the list for that message: list_size is 1, and the 1 skill listed of 3 ranked above it"; a.Verdict != want {
		t.Errorf("verdict %q", a.Verdict)
	}
	// ranking wrote no session
	if _, err := os.Stat(filepath.Join(tmp, "state", "skillet", "sessions")); err == nil {
		t.Error("ranking for --message wrote a session")
	}
}

func TestWhyBadInput(t *testing.T) {
	tmp := isolate(t)
	root := fruitSkills(t, tmp)
	code, _, errOut := runCmd(t, "", "why", "alpah", "--skills", root)
	if code != 2 || !strings.Contains(errOut, `no skill named "alpah"; the closest are: alpha`) {
		t.Errorf("unknown skill: exit %d\n%s", code, errOut)
	}
	if code, _, errOut := runCmd(t, "", "why"); code != 2 || !strings.Contains(errOut, "give one SKILL") {
		t.Errorf("no skill: exit %d\n%s", code, errOut)
	}

	runTurns(t, "--skills", root, "load alpha", "load beta")
	id := onlySession(t, tmp)
	dir := filepath.Join(tmp, "state", "skillet", "sessions", id)
	journal := filepath.Join(dir, "journal.jsonl")
	data, _ := os.ReadFile(journal)
	lines := strings.SplitAfter(string(data), "\n")
	// a line torn in the middle of the file, and a torn last line
	torn := strings.Join(lines[:3], "") + "{\"type\":\"warning\",\"tu\n" + strings.Join(lines[3:], "") + `{"type":"assistant","tu`
	os.WriteFile(journal, []byte(torn), 0o600)
	code, out, errOut := runCmd(t, "", "why", "alpha", "--session", dir)
	if code != 0 || !strings.HasPrefix(out, "alpha: ") || !strings.Contains(out, "loaded by the model") {
		t.Fatalf("torn journal: exit %d\n%s\n%s", code, out, errOut)
	}
	for _, w := range []string{journal + ": line 4: ", "was skipped", ": line " + itoa(len(lines)+1) + ": "} {
		if !strings.Contains(errOut, w) {
			t.Errorf("stderr lacks %q:\n%s", w, errOut)
		}
	}
	if after, _ := os.ReadFile(journal); string(after) != torn {
		t.Error("why rewrote the journal")
	}

	// a folder whose journal is not a session's: named, and disk still speaks
	junk := filepath.Join(tmp, "junk")
	os.MkdirAll(junk, 0o755)
	os.WriteFile(filepath.Join(junk, "journal.jsonl"), []byte("hello\nworld\n"), 0o600)
	code, out, errOut = runCmd(t, "", "why", "alpha", "--session", junk, "--skills", root)
	if code != 1 || !strings.Contains(errOut, filepath.Join(junk, "journal.jsonl")) || !strings.Contains(errOut, "line 1") ||
		!strings.Contains(errOut, "explaining alpha from disk and config alone") || !strings.HasPrefix(out, "alpha: enabled") {
		t.Errorf("junk session: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = runCmd(t, "", "why", "alpha", "--session", "nosuch", "--skills", root)
	if code != 1 || !strings.Contains(errOut, "no session nosuch") || !strings.HasPrefix(out, "alpha: ") {
		t.Errorf("no such session: exit %d\n%s\n%s", code, out, errOut)
	}
	if code, _, errOut := runCmd(t, "", "why", "alpha", "--session", id, "--turn", "9"); code != 1 || !strings.Contains(errOut, "--turn 9: the session has 2 turns") {
		t.Errorf("--turn 9: exit %d\n%s", code, errOut)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// The fast reader gives the same events as the engine's, but for the
// request bodies and raw replies it leaves out.
func TestWhyJournalReaderAgreesWithTheEngine(t *testing.T) {
	tmp := isolate(t)
	runTurns(t, "review account ACC-1042 for anomalies", "write an incident report for yesterday's outage", "run the release checks for v1.4.0")
	jpath := filepath.Join(tmp, "state", "skillet", "sessions", onlySession(t, tmp), "journal.jsonl")
	f, err := os.Open(jpath)
	if err != nil {
		t.Fatal(err)
	}
	full, _, err := journal.Read(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	var fast []event.Event
	_, skipped, err := streamJournal(jpath, func(e event.Event) { fast = append(fast, e) })
	if err != nil || len(skipped) > 0 || len(fast) != len(full) {
		t.Fatalf("fast reader: %d events (engine %d), skipped %v, %v", len(fast), len(full), skipped, err)
	}
	calls, raws := 0, 0
	for i := range full {
		switch e := full[i].(type) {
		case *event.ModelCall:
			calls++
			e.Request = nil
		case *event.Assistant:
			if e.Raw != "" {
				raws++
			}
			e.Raw = ""
		}
		if mc, ok := fast[i].(*event.ModelCall); ok {
			mc.Request = nil // decoded as null
		}
		if !reflect.DeepEqual(full[i], fast[i]) {
			t.Errorf("event %d differs:\nengine %+v\nfast   %+v", i, full[i], fast[i])
		}
	}
	if calls == 0 || raws == 0 {
		t.Errorf("the session should have model calls with raw replies (%d, %d)", calls, raws)
	}
}

// why ranks a message under another agent's profile, and names the known
// profiles for an unknown one.
func TestWhyRanksUnderAProfile(t *testing.T) {
	isolate(t)
	code, out, errOut := runCmd(t, "", "why", "account-review", "--message", "review account ACC-1042", "--profile", "claude-code")
	if code != 0 || !strings.Contains(out, "would be offered at rank 1") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	code, _, errOut = runCmd(t, "", "why", "account-review", "--message", "hi", "--profile", "nope")
	if code == 0 || !strings.Contains(errOut, "known profiles are skillet, claude-code") {
		t.Fatalf("unknown profile: exit %d\n%s", code, errOut)
	}
}

// notesSkills writes alpha-notes, beta-notes and a gamma-notes too large
// to load under max_skill_chars=2000.
func notesSkills(t *testing.T, tmp string) string {
	t.Helper()
	root := filepath.Join(tmp, "skills")
	writeWhySkill(t, root, "alpha-notes", "Notes about alpha topics.", "", "# Alpha\n\nWrite notes.")
	writeWhySkill(t, root, "beta-notes", "Notes about beta topics.", "", "# Beta\n\nWrite notes.")
	writeWhySkill(t, root, "gamma-notes", "Notes about gamma topics.", "", strings.Repeat("Write long notes. ", 150))
	return root
}

// A skill evicted on turn 2 and offered on turn 3, when the model asked
// for another skill and was refused: the verdict leads with the eviction,
// names the refused load, and the JSON status and fate carry the eviction.
func TestWhyLeadsWithTheEviction(t *testing.T) {
	tmp := isolate(t)
	root := notesSkills(t, tmp)
	runTurns(t, "--skills", root, "--set", "max_loaded_skills=1", "--set", "max_skill_chars=2000",
		"load alpha-notes", "load beta-notes", "load gamma-notes")
	id := onlySession(t, tmp)

	r, _ := whyJSON(t, "alpha-notes", "--session", id)
	lead := "evicted by the load of beta-notes on turn 2 (max_loaded_skills is 1); "
	if !strings.HasPrefix(r.Verdict, lead+"offered at rank 1 of 3 ") || !strings.Contains(r.Verdict, " on turn 3; the model asked to load gamma-notes instead, and was refused: gamma-notes is ") ||
		strings.Contains(r.Verdict, "answered") {
		t.Errorf("verdict %q", r.Verdict)
	}
	if f := r.Fate; f == nil || f.Kind != why.FateEvicted || f.Turn != 2 || f.By != "beta-notes" || f.MaxLoaded != 1 {
		t.Errorf("fate %+v", r.Fate)
	}
	if r.Status[0].Code != why.StatusEvicted || r.Status[0].Detail != strings.TrimSuffix(lead, "; ") {
		t.Errorf("status %+v", r.Status)
	}
	in := r.Turns[2].Instead
	if in == nil || in.Kind != "refused" || !reflect.DeepEqual(in.Skills, []string{"gamma-notes"}) || !strings.Contains(in.Refused["gamma-notes"], "over max_skill_chars (2000)") {
		t.Errorf("turn 3 instead: %+v", in)
	}
	// turn 2: the eviction, without saying it was still loaded on that turn
	if v := whyFirstLine(whyText(t, "alpha-notes", "--session", id, "--turn", "2")); v != "alpha-notes: "+lead+"still loaded at the start of turn 2 (loaded on turn 1)" {
		t.Errorf("--turn 2 verdict %q", v)
	}
	// turn 1, when it was loaded, says so
	if v := whyFirstLine(whyText(t, "alpha-notes", "--session", id, "--turn", "1")); !strings.HasPrefix(v, "alpha-notes: offered at rank 1 of 3") || !strings.HasSuffix(v, "on turn 1 and loaded by the model") {
		t.Errorf("--turn 1 verdict %q", v)
	}
	// beta-notes is loaded at the end: its fate and status say since when
	b, _ := whyJSON(t, "beta-notes", "--session", id)
	if b.Fate == nil || b.Fate.Kind != why.FateLoaded || b.Fate.Turn != 2 || b.Status[0].Code != why.StatusLoaded || b.Status[0].Detail != "loaded by the model on turn 2" {
		t.Errorf("beta-notes: fate %+v, status %+v", b.Fate, b.Status)
	}
	if b.Verdict != "still loaded on turn 3 (loaded on turn 2)" {
		t.Errorf("beta-notes verdict %q", b.Verdict)
	}
	// gamma-notes: its refused load decides
	g, _ := whyJSON(t, "gamma-notes", "--session", id)
	if g.Fate == nil || g.Fate.Kind != why.FateRefused || g.Fate.Turn != 3 || !strings.HasPrefix(g.Verdict, "too large to ever load: ") || !strings.Contains(g.Verdict, "; its load was refused on turn 3: gamma-notes is ") {
		t.Errorf("gamma-notes: fate %+v, verdict %q", g.Fate, g.Verdict)
	}
}

// An unknown name gets each close name once, or the known skills when none
// is close.
func TestWhySuggestsEachNameOnce(t *testing.T) {
	tmp := isolate(t)
	root := filepath.Join(tmp, "skills")
	writeWhySkill(t, root, "release-notes", "Write release notes.", "", "# Notes")
	writeWhySkill(t, root, "meeting-notes", "Write meeting notes.", "", "# Notes")
	runTurns(t, "--skills", root, "load release-notes")
	id := onlySession(t, tmp)
	// the session and the disk both know release-notes
	code, _, errOut := runCmd(t, "", "why", "relase-notes", "--session", id)
	if code != 2 || !strings.Contains(errOut, `no skill named "relase-notes"; the closest are: `) || strings.Count(errOut, "release-notes") != 1 {
		t.Errorf("relase-notes: exit %d\n%s", code, errOut)
	}
	code, _, errOut = runCmd(t, "", "why", "nosuchskill", "--session", id)
	if code != 2 || !strings.Contains(errOut, `no skill named "nosuchskill"; the known skills are: meeting-notes, release-notes`) {
		t.Errorf("nosuchskill: exit %d\n%s", code, errOut)
	}
}
