package harness

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"skillet/harness/chat"
	"skillet/harness/event"
	"skillet/harness/profile"
)

// TestRandomProfileSessions drives sessions under the agent profiles
// through random activations, tool calls, user loads and unloads and
// lifecycle switches. Every request must be valid chat (a tool result
// follows its call; added user messages never split tool results); with
// the lifecycle rules on, the LRU bound holds; and the reopened journal
// must fold to the live session.
func TestRandomProfileSessions(t *testing.T) {
	sequences := randomSeeds(t, 150, 30)
	w := newWorkspace(t)
	for _, name := range randomSkills {
		writeRandomSkill(w, name)
		w.responseTool(name+"_tool", 1, name+" {{.q}}")
	}
	w.responseTool("shared", 1, "shared {{.q}}")
	profiles := profile.Names()[1:]
	replayed, loads, stubs, followups := 0, 0, 0, 0
	for seed := 0; seed < sequences; seed++ {
		rng := rand.New(rand.NewSource(int64(seed)))
		prof := profiles[rng.Intn(len(profiles))]
		cfg := fmt.Sprintf("[session]\nmax_loaded_skills = %d\nmax_transcript_messages = %d\nmax_tool_calls = 6\n", 1+rng.Intn(3), 3+rng.Intn(8))
		if rng.Intn(2) == 0 {
			cfg += "lifecycle = true\n"
		}
		if rng.Intn(3) == 0 {
			cfg += fmt.Sprintf("list_size = %d\n", 1+rng.Intn(len(randomSkills)-1))
		}
		f := w.open(cfg, func(o *Options) { o.Profile = prof })
		s := f.s
		f.model.fallback = func(req *chat.Request) (*chat.Reply, error) {
			checkProfileRequest(t, s, req)
			for _, m := range req.Messages {
				switch {
				case m.Role == chat.RoleTool && strings.Contains(m.Content, "is no longer loaded"):
					stubs++
				case m.Role == chat.RoleUser && strings.HasPrefix(m.Content, "Base directory for this skill: "):
					followups++
				}
			}
			switch r := rng.Intn(10); {
			case r < 4:
				name := randomSkills[rng.Intn(len(randomSkills))]
				if rng.Intn(8) == 0 {
					name = "nonexistent"
				}
				return activateStep(prof, w.root, name)(req)
			case r < 6:
				return call(randomSkills[rng.Intn(len(randomSkills))]+"_tool", fmt.Sprintf(`{"q":"%d"}`, rng.Intn(100)))(req)
			case r < 8:
				// two calls in one message: what an activation adds must
				// wait for both results
				a, _ := activateStep(prof, w.root, randomSkills[rng.Intn(len(randomSkills))])(req)
				b, _ := call("shared", `{"q":"x"}`)(req)
				if rng.Intn(2) == 0 {
					a, b = b, a
				}
				a.Message.ToolCalls = append(a.Message.ToolCalls, b.Message.ToolCalls...)
				return a, nil
			default:
				return say("answer")(req)
			}
		}
		for op := 0; op < 6; op++ {
			switch r := rng.Intn(10); {
			case r < 6:
				mention := ""
				if rng.Intn(4) == 0 {
					mention = "$" // Codex injects a mentioned skill
				}
				_, _ = s.Turn(context.Background(), fmt.Sprintf("message %d about %s%s", op, mention, randomSkills[rng.Intn(len(randomSkills))]))
			case r < 7:
				_ = s.LoadSkill(randomSkills[rng.Intn(len(randomSkills))])
			case r < 8:
				_ = s.UnloadSkill(randomSkills[rng.Intn(len(randomSkills))])
			case r < 9:
				_ = s.Set("lifecycle", fmt.Sprint(rng.Intn(2) == 0))
			default:
				_ = s.Set("max_loaded_skills", fmt.Sprint(1+rng.Intn(3)))
			}
			s.mu.Lock()
			if s.frame().lifecycle() && len(s.st.Loaded) > s.st.Settings.MaxLoadedSkills {
				t.Errorf("seed %d (%s): %d loaded with the lifecycle on, max %d", seed, prof, len(s.st.Loaded), s.st.Settings.MaxLoadedSkills)
			}
			s.mu.Unlock()
		}
		loads += len(f.rec.ofType(event.TypeSkillLoaded))
		if checkReplay(t, w, f, false) {
			replayed++
		}
		if t.Failed() {
			t.Fatalf("seed %d (%s) broke an invariant", seed, prof)
		}
	}
	if replayed < sequences/2 || loads == 0 || stubs == 0 || followups == 0 {
		t.Errorf("the sequences did not exercise the profiles: %d of %d reopened, %d loads, %d unloaded results, %d body messages", replayed, sequences, loads, stubs, followups)
	}
	t.Logf("%d of %d reopened, %d loads, %d unloaded results, %d body messages seen", replayed, sequences, loads, stubs, followups)
}

// checkProfileRequest checks that a request is valid chat: every tool
// result answers a call of the assistant message before the run of tool
// results it belongs to, and every call of that message is answered
// before any other message.
func checkProfileRequest(t *testing.T, s *Session, req *chat.Request) {
	t.Helper()
	var open map[string]bool
	for i, m := range req.Messages {
		switch {
		case m.Role == chat.RoleTool:
			if !open[m.ToolCallID] {
				t.Errorf("message %d: tool result %s does not follow its call", i, m.ToolCallID)
			}
			delete(open, m.ToolCallID)
		case len(open) > 0:
			t.Errorf("message %d (%s) comes before every call of the assistant message is answered", i, m.Role)
			open = nil
		}
		if m.Role == chat.RoleAssistant {
			open = map[string]bool{}
			for _, tc := range m.ToolCalls {
				open[tc.ID] = true
			}
		}
	}
}
