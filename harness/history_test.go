package harness

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"skillet/harness/event"
	"skillet/harness/journal"
	"testing"

	"skillet/harness/chat"
	"skillet/harness/rulebook"
	"skillet/harness/view"
)

// historyByFullFold is time travel's state at every call the long way:
// the whole journal read and folded, a snapshot kept at each call. The
// checkpoints must agree with it.
func historyByFullFold(t *testing.T, path string) []*view.Snapshot {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	events, _, _, err := journal.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	fold, _, _ := rulebook.Repair(events)
	st := rulebook.New("", "", event.DefaultSettings())
	var out []*view.Snapshot
	for _, e := range fold {
		st.Apply(e)
		if mc, ok := e.(*event.ModelCall); ok {
			out = append(out, view.AtCall(st, mc))
		}
	}
	return out
}

// sameHistory checks every call of h against the full fold.
func sameHistory(t *testing.T, h *view.History, want []*view.Snapshot) {
	t.Helper()
	if h.Len() != len(want) {
		t.Fatalf("%d calls in the history, %d in the journal", h.Len(), len(want))
	}
	for i, w := range want {
		got, err := h.At(i)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, w) {
			g, _ := json.Marshal(got)
			wj, _ := json.Marshal(w)
			t.Fatalf("call %d from the checkpoints:\n%s\nfolded from the start:\n%s", i+1, g, wj)
		}
		if turn, call := h.Call(i); turn != w.Turn || call != w.Call {
			t.Fatalf("call %d is listed as turn %d call %d, not turn %d call %d", i+1, turn, call, w.Turn, w.Call)
		}
	}
}

// The state at each call, folded from the checkpoint before it, is the
// state the whole journal folds to at that call: in a live session, in a
// reopened one and in one that went on after reopening, over several
// checkpoints, with loads, evictions and turns of several calls.
func TestHistoryFromCheckpointsIsTheWholeFold(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	f := w.open("", nil)
	names := []string{"alpha", "beta", "gamma"}
	turns := view.CheckEvery*2 + 7
	for i := 0; i < turns; i++ {
		steps := []step{say(fmt.Sprintf("answer %d", i))}
		if i%3 == 0 {
			steps = append([]step{load(names[i%len(names)])}, steps...)
		}
		f.turn(fmt.Sprintf("message %d", i), steps...)
	}
	path := f.s.journalPath()
	live := f.s.hist.Checkpoints()
	if live < 3 {
		t.Fatalf("the live session took %d checkpoints over %d turns", live, turns)
	}
	h, err := f.s.History()
	if err != nil {
		t.Fatal(err)
	}
	if h.Checkpoints() < 2 {
		t.Fatalf("%d checkpoints over %d calls", h.Checkpoints(), h.Len())
	}
	sameHistory(t, h, historyByFullFold(t, path))
	if i, ok := h.First(5); !ok || turnOf(h, i) != 5 || turnOf(h, i-1) != 4 {
		t.Fatalf("turn 5's first call: %d %v", i, ok)
	}
	if _, ok := h.First(turns + 5); ok {
		t.Fatal("a turn never run has a first call")
	}
	if _, err := h.At(h.Len()); err == nil {
		t.Fatal("a call past the last is not refused")
	}
	f.s.Close()

	// reopened: the checkpoints come from the reopening fold
	re, err := Open(path, Options{Config: f.cfg, Catalog: w.catalog(), Model: f.model, ModelName: "test-model"})
	if err != nil {
		t.Fatal(err)
	}
	defer re.Close()
	if n := re.hist.Checkpoints(); n < 2 {
		t.Fatalf("the reopening fold took %d checkpoints", n)
	}
	h, err = re.History()
	if err != nil {
		t.Fatal(err)
	}
	sameHistory(t, h, historyByFullFold(t, path))
	f.s = re
	for i := 0; i < view.CheckEvery+3; i++ {
		f.turn(fmt.Sprintf("after reopening %d", i), load(names[i%len(names)]), say("ok"))
	}
	h, err = re.History()
	if err != nil {
		t.Fatal(err)
	}
	sameHistory(t, h, historyByFullFold(t, path))
}

// HistoryAt adds the request's parts, read back from the journal, byte for
// byte what the model got — for calls memory no longer holds as for the
// latest.
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
	live := f.rec.ofType(event.TypeModelCall)
	if hist.Len() != len(live) {
		t.Fatalf("%d snapshots, %d model calls", hist.Len(), len(live))
	}
	for i := range hist.Len() {
		light, err := hist.At(i)
		if err != nil {
			t.Fatal(err)
		}
		if light.Instructions != "" || light.Tools != nil {
			t.Fatalf("snapshot %d holds its request already", i)
		}
		whole, err := f.s.HistoryAt(light, i)
		if err != nil {
			t.Fatal(err)
		}
		var req chat.Request
		if err := json.Unmarshal(live[i].(*event.ModelCall).Request, &req); err != nil {
			t.Fatal(err)
		}
		if whole.Instructions != req.Messages[0].Content || len(whole.Tools) != len(req.Tools) || whole.Window.InWindow != len(req.Messages)-1 {
			t.Fatalf("call %d: instructions %d bytes (want %d), %d tools (want %d)", i+1, len(whole.Instructions), len(req.Messages[0].Content), len(whole.Tools), len(req.Tools))
		}
		if whole.Turn != light.Turn || len(whole.Loaded) != len(light.Loaded) {
			t.Fatalf("call %d: the state changed on the way", i+1)
		}
	}
	second, err := hist.At(1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.HistoryAt(second, 0); err == nil {
		t.Error("a snapshot given with another call's index is not refused")
	}
}

// turnOf is the turn of call i of h.
func turnOf(h *view.History, i int) int {
	turn, _ := h.Call(i)
	return turn
}
