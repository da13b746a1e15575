package harness

import (
	"encoding/json"
	"fmt"
	"testing"

	"skillet/harness/chat"
)

// Time travel's snapshots hold each call's state; HistoryAt adds the
// request's parts, read back from the journal, byte for byte what the
// model got — for calls memory no longer holds as for the latest.
func TestHistoryAtGivesEachCallsRequest(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	f := w.open("", nil)
	for i := 0; i < rulebookKeep()+4; i++ {
		steps := []step{say(fmt.Sprintf("answer %d", i))}
		if i%3 == 0 {
			steps = append([]step{load("alpha")}, steps...)
		}
		f.turn(fmt.Sprintf("message %d", i), steps...)
	}
	hist, err := f.s.History()
	if err != nil {
		t.Fatal(err)
	}
	live := f.rec.ofType(TypeModelCall)
	if len(hist) != len(live) {
		t.Fatalf("%d snapshots, %d model calls", len(hist), len(live))
	}
	for i, light := range hist {
		if light.Instructions != "" || light.Tools != nil {
			t.Fatalf("snapshot %d holds its request already", i)
		}
		whole, err := f.s.HistoryAt(light, i)
		if err != nil {
			t.Fatal(err)
		}
		var req chat.Request
		if err := json.Unmarshal(live[i].(*ModelCall).Request, &req); err != nil {
			t.Fatal(err)
		}
		if whole.Instructions != req.Messages[0].Content || len(whole.Tools) != len(req.Tools) || whole.Window.InWindow != len(req.Messages)-1 {
			t.Fatalf("call %d: instructions %d bytes (want %d), %d tools (want %d)", i+1, len(whole.Instructions), len(req.Messages[0].Content), len(whole.Tools), len(req.Tools))
		}
		if whole.Turn != light.Turn || len(whole.Loaded) != len(light.Loaded) {
			t.Fatalf("call %d: the state changed on the way", i+1)
		}
	}
	if _, err := f.s.HistoryAt(hist[1], 0); err == nil {
		t.Error("a snapshot given with another call's index is not refused")
	}
}
