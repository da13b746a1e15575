package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"skillet/harness/agenttools"
	"skillet/harness/event"
	"skillet/harness/rulebook"
	"skillet/harness/view"
	"strconv"
	"strings"
	"testing"

	"skillet/harness/chat"
)

// TestRandomSequencesKeepTheInvariants drives sessions through random
// sequences of user messages, loads, re-reads, tool calls, unknown tools,
// cancels, user commands, model switches, manual calls, approvals and skill
// edits on disk, and checks after every step that the rule book's
// invariants hold. At the end of each, the journal is reopened and its fold
// must be the live session: the same state, snapshot and transcript.
func TestRandomSequencesKeepTheInvariants(t *testing.T) {
	sequences := randomSeeds(t, 2000, 200)
	// one workspace for all sequences: each puts back the skills it edits
	w := newWorkspace(t)
	for _, name := range randomSkills {
		writeRandomSkill(w, name)
		w.tool(name+"_tool.yaml", fmt.Sprintf("name: %s_tool\nversion: 1\ndescription: Tool of %s.\nparameters:\n  type: object\n  properties:\n    q: {type: string}\nresponse: '{{setState \"last\" .q}}{{appendStore \"all\" .q}}%s:{{.q}}'\n", name, name, name))
	}
	w.responseTool("shared", 1, "shared {{.q}}")
	seen := map[string]int{}
	for seed := 0; seed < sequences; seed++ {
		for k, v := range runRandomSequence(t, w, int64(seed)) {
			seen[k] += v
		}
		if t.Failed() {
			t.Fatalf("seed %d broke an invariant", seed)
		}
	}
	// the sequences must have exercised what they claim to
	for _, what := range []string{event.TypeSkillLoaded, "unload:lru", "unload:user", "unload:invalid", event.TypeSkillActivated, "unknown-tool", "bad-args", "cancelled", event.TypeSkillChanged, event.TypeStateChanged, "refused-load",
		event.TypeSkillPreload, event.TypePromptFrozen, event.TypeApproval, event.TypeSettingChanged, "manual", "replayed", "left-off"} {
		if seen[what] == 0 {
			t.Errorf("no sequence produced %s", what)
		}
	}
	t.Logf("events seen: %v", seen)
}

// randomSeeds is how many random sessions a test drives: n, or short
// under -short, or SKILLET_RANDOM_SEEDS when set (a longer search than CI
// runs, say 20000).
func randomSeeds(t *testing.T, n, short int) int {
	t.Helper()
	if v := os.Getenv("SKILLET_RANDOM_SEEDS"); v != "" {
		k, err := strconv.Atoi(v)
		if err != nil || k < 1 {
			t.Fatalf("SKILLET_RANDOM_SEEDS=%q: want a positive number of seeds", v)
		}
		return k
	}
	if testing.Short() {
		return short
	}
	return n
}

var randomSkills = []string{"alpha", "beta", "gamma", "delta"}

func writeRandomSkill(w *workspace, name string) {
	w.skill(name, name+" does "+name+" work.", strings.ToUpper(name)+" text.", fmt.Sprintf("tools:\n  - name: %s_tool\n  - name: shared\n", name))
}

func runRandomSequence(t *testing.T, w *workspace, seed int64) map[string]int {
	return runRandomSequenceWith(t, w, seed, nil)
}

// runRandomSequenceWith is runRandomSequence calling afterOp, when set,
// with the live session after each operation.
func runRandomSequenceWith(t *testing.T, w *workspace, seed int64, afterOp func(*Session)) map[string]int {
	rng := rand.New(rand.NewSource(seed))
	edited := map[string]bool{}
	defer func() {
		for name := range edited {
			writeRandomSkill(w, name)
		}
	}()
	cfg := ""
	if rng.Intn(3) == 0 {
		cfg += "[approval]\nbeta_tool = \"ask\"\ngamma_tool = \"always-deny\"\n"
	}
	cfg += fmt.Sprintf("[session]\nmax_loaded_skills = %d\nmax_transcript_messages = %d\nmax_tool_calls = 6\nmax_loads_per_turn = %d\n", 1+rng.Intn(3), 3+rng.Intn(8), 1+rng.Intn(3))
	if rng.Intn(3) == 0 {
		// a list shorter than the catalog: turns leave skills off (R10)
		cfg += fmt.Sprintf("list_size = %d\n", 1+rng.Intn(len(randomSkills)-1))
	}
	// the modes of the rule book, now and then
	switch rng.Intn(8) {
	case 0:
		cfg += "delivery = \"tool-result\"\n"
	case 1:
		cfg += "freeze_prompt = true\n"
	case 2:
		cfg += "load_skill_tool = false\n"
	case 3:
		cfg += "[[skills]]\nname = \"alpha\"\npreload = true\n[[skills]]\nname = \"beta\"\n[[skills]]\nname = \"gamma\"\n[[skills]]\nname = \"delta\"\n"
	}
	approveAll := rng.Intn(2) == 0
	f := w.open(cfg, func(o *Options) { o.ApproveAll = approveAll })
	s := f.s
	var cancel context.CancelFunc
	f.model.fallback = func(req *chat.Request) (*chat.Reply, error) {
		checkRequest(t, s, req)
		switch r := rng.Intn(10); {
		case r < 3:
			name := randomSkills[rng.Intn(len(randomSkills))]
			if rng.Intn(8) == 0 {
				name = "nonexistent"
			}
			return load(name)(req)
		case r < 6:
			var pairs []string
			for n := 1 + rng.Intn(3); n > 0; n-- {
				name := randomSkills[rng.Intn(len(randomSkills))] + "_tool"
				if rng.Intn(6) == 0 {
					name = "bogus"
				}
				args := fmt.Sprintf(`{"q":"%d"}`, rng.Intn(100))
				if rng.Intn(10) == 0 {
					args = "{broken"
				}
				pairs = append(pairs, name, args)
			}
			return call(pairs...)(req)
		case r < 7 && cancel != nil:
			cancel()
			return nil, context.Canceled
		default:
			return say("answer")(req)
		}
	}
	for op := 0; op < 6; op++ {
		switch r := rng.Intn(10); {
		case r < 6:
			ctx, c := context.WithCancel(context.Background())
			cancel = c
			_, _ = s.Turn(ctx, fmt.Sprintf("message %d about %s", op, randomSkills[rng.Intn(len(randomSkills))]))
			c()
			cancel = nil
		case r < 7:
			_ = s.LoadSkill(randomSkills[rng.Intn(len(randomSkills))])
		case r < 8:
			_ = s.UnloadSkill(randomSkills[rng.Intn(len(randomSkills))])
		case r < 9:
			name := randomSkills[rng.Intn(len(randomSkills))]
			edited[name] = true
			if rng.Intn(3) == 0 {
				w.skill(name, strings.Repeat("x", 1100), "invalid now", "")
			} else {
				w.skill(name, name+" does "+name+" work.", fmt.Sprintf("%s edited %d.", name, op), fmt.Sprintf("tools:\n  - name: %s_tool\n", name))
			}
		case r < 10 && rng.Intn(3) == 0:
			_ = s.SetModel(fmt.Sprintf("model-%d", rng.Intn(3)))
		case r < 10 && rng.Intn(2) == 0:
			name := randomSkills[rng.Intn(len(randomSkills))] + "_tool"
			if _, err := s.CallTool(context.Background(), name, fmt.Sprintf(`{"q":"m%d"}`, op)); err == nil {
				f.rec.on(&event.Warning{Message: "manual"})
			}
		default:
			_ = s.Set("max_loaded_skills", fmt.Sprint(1+rng.Intn(3)))
		}
		checkSession(t, s)
		if afterOp != nil {
			afterOp(s)
		}
	}
	if checkReplay(t, w, f, approveAll) {
		f.rec.on(&event.Warning{Message: "replayed"})
	}
	seen := map[string]int{}
	for _, e := range f.rec.all() {
		seen[e.EventType()]++
		switch e := e.(type) {
		case *event.Warning:
			if e.Message == "manual" || e.Message == "replayed" {
				seen[e.Message]++
			}
		case *event.SkillUnloaded:
			seen["unload:"+string(e.Reason)]++
		case *event.ToolResult:
			switch {
			case strings.HasPrefix(e.Content, "Unknown tool"):
				seen["unknown-tool"]++
			case strings.Contains(e.Content, "bad arguments"):
				seen["bad-args"]++
			case strings.HasPrefix(e.Content, "load refused"):
				seen["refused-load"]++
			}
		case *event.TurnEnd:
			if e.StopReason == event.StopCancelled {
				seen["cancelled"]++
			}
			if len(e.LeftOff) > 0 {
				seen["left-off"]++
			}
		}
	}
	return seen
}

// checkRequest checks one request as the model receives it.
func checkRequest(t *testing.T, s *Session, req *chat.Request) {
	t.Helper()
	msgs := req.Messages
	if len(msgs) > 0 && msgs[0].Role == chat.RoleSystem {
		msgs = msgs[1:]
	}
	if len(msgs) == 0 || msgs[0].Role != chat.RoleUser {
		t.Errorf("window does not start at a user message")
		return
	}
	calls := map[string]int{}
	for _, m := range msgs {
		for _, tc := range m.ToolCalls {
			calls[tc.ID]++
		}
		if m.Role == chat.RoleTool {
			if calls[m.ToolCallID] != 1 {
				t.Errorf("tool result %s without its call", m.ToolCallID)
			}
			calls[m.ToolCallID]++
		}
	}
	for id, n := range calls {
		if n != 2 {
			t.Errorf("tool call %s has no result in the request", id)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	allowed := map[string]bool{rulebook.ToolLoadSkill: true, rulebook.ToolReadResource: true}
	if defs, err := agenttools.For(s.st.Profile); err == nil && s.st.Settings.AgentTools {
		for _, d := range defs {
			allowed[d.Name] = true
		}
	}
	for _, ls := range append(append([]*rulebook.Loaded{}, s.st.Loaded...), s.st.Preloads...) {
		for _, ref := range ls.Body.Tools {
			allowed[modelToolName(ref.Name)] = true
		}
	}
	for _, tool := range req.Tools {
		// a frozen prompt declares every tool a skill could bring (R23);
		// calling one whose skill is not loaded is refused instead
		if !allowed[tool.Function.Name] && !s.st.Settings.FreezePrompt {
			t.Errorf("tool %s in the request belongs to no built-in, agent tool or loaded skill", tool.Function.Name)
		}
	}
	if len(s.st.Loaded) > s.st.Settings.MaxLoadedSkills {
		t.Errorf("%d skills loaded, max %d", len(s.st.Loaded), s.st.Settings.MaxLoadedSkills)
	}
}

// checkSession checks the session between operations.
func checkSession(t *testing.T, s *Session) {
	t.Helper()
	results := map[string]int{}
	var callIDs []string
	for _, e := range s.Transcript().Items() {
		for _, tc := range e.ToolCalls {
			callIDs = append(callIDs, tc.ID)
		}
		if e.Kind == rulebook.EntryTool {
			results[e.ToolCallID]++
		}
	}
	for _, id := range callIDs {
		if results[id] != 1 {
			t.Errorf("tool call %s has %d results, want exactly 1", id, results[id])
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.st.Loaded) > s.st.Settings.MaxLoadedSkills {
		t.Errorf("%d skills loaded, max %d", len(s.st.Loaded), s.st.Settings.MaxLoadedSkills)
	}
	live := map[string]bool{}
	for _, ls := range append(append([]*rulebook.Loaded{}, s.st.Loaded...), s.st.Preloads...) {
		p, _ := stateFile(s.dir, ls.Name, ls.LoadExec)
		live[filepath.Base(p)] = true
	}
	states, _ := os.ReadDir(filepath.Join(s.dir, "state"))
	for _, st := range states {
		if !live[st.Name()] {
			t.Errorf("state %s outlived its skill's unload", st.Name())
		}
	}
	for name := range s.st.Stores {
		if p, err := storeFile(s.dir, name); err != nil {
			t.Errorf("store of %s: %v", name, err)
		} else if _, err := os.Stat(p); err != nil {
			t.Errorf("store of %s is gone: %v", name, err)
		}
	}
}

// checkReplay reopens a session's journal and requires its fold to be the
// live session (DESIGN §1: the state is a fold of its events). The live
// session reads the disk first, as reopening does.
func checkReplay(t *testing.T, w *workspace, f *fixture, approveAll bool) bool {
	t.Helper()
	if err := f.s.Reload(); err != nil {
		t.Errorf("reload: %v", err)
		return false
	}
	want := foldedView(t, f.s)
	wantShown := shownState(t, f.s)
	dir := f.s.Dir()
	f.s.Close() // the journal is locked while a session has it open
	// skillet show folds the journal read-only: it prints what the live
	// session's --show-state did, every field of it
	if in, _, err := Inspect(dir, Options{Config: f.cfg, Catalog: w.catalog(), Model: &scripted{}, ApproveAll: approveAll}); err == nil {
		got := shownState(t, in)
		in.Close()
		if !sameLines(t, "skillet show --json", wantShown, got) {
			return false
		}
	}
	re, err := Open(dir, Options{Config: f.cfg, Catalog: w.catalog(), Model: &scripted{}, ApproveAll: approveAll})
	if err != nil {
		// R19: a config whose named skills no longer select refuses to
		// start, reopened or not
		if !strings.Contains(err.Error(), "select skills") {
			t.Errorf("reopen: %v", err)
		}
		return false
	}
	defer re.Close()
	return sameLines(t, "the state", want, foldedView(t, re)) && sameLines(t, "the reopened state view", wantShown, shownState(t, re))
}

// sameLines reports where a reopened session's text first differs from
// the live one's.
func sameLines(t *testing.T, what, want, got string) bool {
	t.Helper()
	if want == got {
		return true
	}
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(wl) && i < len(gl); i++ {
		if wl[i] != gl[i] {
			from := max(0, i-12)
			t.Errorf("%s of the reopened session differs from the live one at line %d:\n live:     %s\n reopened: %s\ncontext (live):\n%s", what, i+1, wl[i], gl[i], strings.Join(wl[from:min(len(wl), i+6)], "\n"))
			return false
		}
	}
	t.Errorf("%s of the reopened session differs from the live one: %d lines live, %d reopened", what, len(wl), len(gl))
	return false
}

// shownState is what skillet show --json (and run --show-state) prints.
func shownState(t *testing.T, s *Session) string {
	t.Helper()
	b, err := json.MarshalIndent(s.State(), "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// foldedView is everything a session is, as text: its whole rule-book
// state, the snapshot the UI shows and the state and store files on disk.
func foldedView(t *testing.T, s *Session) string {
	t.Helper()
	snap := s.snapshot(true)
	snap.Notices = nil // what the catalog said when the process started, not the session
	s.mu.Lock()
	files := map[string]string{}
	for _, sub := range []string{"state", "store"} {
		ents, _ := os.ReadDir(filepath.Join(s.dir, sub))
		for _, e := range ents {
			b, _ := os.ReadFile(filepath.Join(s.dir, sub, e.Name()))
			var c bytes.Buffer
			if json.Compact(&c, b) == nil {
				b = c.Bytes() // the journal keeps JSON, not its layout
			}
			files[sub+"/"+e.Name()] = string(b)
		}
	}
	b, err := json.MarshalIndent(struct {
		State *rulebook.State
		Snap  *view.Snapshot
		Files map[string]string
	}{s.st, snap, files}, "", " ")
	s.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
