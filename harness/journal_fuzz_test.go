package harness

import (
	"bytes"
	"strings"
	"testing"

	"skillet/harness/rulebook"
)

// FuzzReadJournal feeds damaged journals to the reader, the repair and the
// fold: none may panic, and a repaired fold keeps every tool call paired
// with one result. Its seed is a small journal kept in testdata (a turn
// with a load and a tool call, 3.7 KB), not one made by running a session:
// every fuzzing worker runs this setup, and each input found interesting
// is minimized, which for the 14 KB journal of a two-turn session took the
// whole minimizing time at each find.
func FuzzReadJournal(f *testing.F) {
	raw, err := readFileErr("testdata/journal-seed.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(raw)
	lines := strings.Split(string(raw), "\n")
	f.Add([]byte(strings.Join(lines[:len(lines)/2], "\n")))
	f.Add([]byte(`{"type":"blob","hash":"sha256:00","json":{}}` + "\n" + `{"type":"model_call","turn":1,"request_ref":{"head":"{","keep":[3,9]}}`))
	f.Add([]byte(`{"type":"model_call","left_off_delta":{"del":["a"],"sorted":true}}`))
	f.Add([]byte(`{"type":"assistant","raw_gzip":"!!"}` + "\n" + `{"type":"tool_result","tool_call_id":"x"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		events, _, err := ReadJournal(bytes.NewReader(data))
		if err != nil {
			return
		}
		fold, _, tail := rulebook.Repair(events)
		st := rulebook.New("fuzz", "m", DefaultSettings())
		for _, e := range fold {
			st.Apply(e)
		}
		for _, r := range tail {
			st.Apply(r)
		}
		results := map[string]int{}
		for _, en := range st.Entries.All() {
			if en.Kind == EntryTool {
				results[en.ToolCallID]++
			}
		}
		for _, en := range st.Entries.All() {
			for _, tc := range en.ToolCalls {
				if results[tc.ID] != 1 {
					t.Fatalf("call %s has %d results after the repair", tc.ID, results[tc.ID])
				}
			}
		}
	})
}

// A journal line longer than any buffer (a 65 MiB reply) reads.
func TestJournalReadsAHugeLine(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 65 MiB")
	}
	huge := strings.Repeat("a", 65<<20)
	j := `{"type":"session_start","turn":0,"session_id":"s","model":"m","base_url":"","limits":{}}` + "\n" +
		`{"type":"turn_start","turn":1,"text":"hi"}` + "\n" +
		`{"type":"assistant","turn":1,"call":1,"text":"` + huge + `","tool_calls":[]}` + "\n" +
		`{"type":"turn_end","turn":1,"stop_reason":"done"}` + "\n"
	events, problems, err := ReadJournal(strings.NewReader(j))
	if err != nil || len(problems) > 0 || len(events) != 4 {
		t.Fatalf("read: %v %v, %d events", err, problems, len(events))
	}
	if a := events[2].(*Assistant); len(a.Text) != len(huge) {
		t.Fatalf("the reply came back %d bytes long", len(a.Text))
	}
}
