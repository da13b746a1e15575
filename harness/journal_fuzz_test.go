package harness

import (
	"bufio"
	"bytes"
	"skillet/harness/event"
	"skillet/harness/journal"
	"strings"
	"testing"

	"skillet/harness/rulebook"
)

// maxFuzzJournal bounds the journals FuzzReadJournal reads. The fuzzer
// minimizes every input it finds interesting, in time that grows with the
// square of its length (a 4 KB input used the whole minute it is given at
// each find, and the fuzzer ran 9 inputs a minute); past this size an input
// is dropped at once, so the inputs kept stay small and quick to minimize.
const maxFuzzJournal = 512

// fuzzJournalSeeds are small journals, each reaching one part of the
// reader, the repair or the fold: a turn with a tool call and its result,
// a skill load, a turn cut off with a call unanswered.
var fuzzJournalSeeds = []string{
	`{"type":"session_start","session_id":"s","model":"m","limits":{"list_size":3}}
{"type":"turn_start","turn":1,"text":"hi"}
{"type":"assistant","turn":1,"call":1,"tool_calls":[{"id":"c1","name":"t","arguments":"{}"}]}
{"type":"tool_result","turn":1,"tool_call_id":"c1","name":"t","content":"ok"}
{"type":"turn_end","turn":1,"stop_reason":"done"}`,
	`{"type":"turn_start","turn":1,"text":"a"}
{"type":"assistant","turn":1,"call":1,"tool_calls":[{"id":"c1","name":"load_skill","arguments":"{\"name\":\"x\"}"}]}
{"type":"skill_loaded","turn":1,"skill":"x","execution_id":"x-1","tools":["t@1"],"by":"model","body":{"text":"Do x."}}
{"type":"context_changed","turn":1,"line":"loaded x","tool_call_id":"c1"}`,
	`{"type":"turn_start","turn":1,"text":"a"}
{"type":"assistant","turn":1,"call":1,"tool_calls":[{"id":"c1","name":"t"},{"id":"c2","name":"t"}]}
{"type":"tool_result","turn":1,"tool_call_id":"c2","name":"t"}`,
}

// fuzzDamagedSeeds are damaged lines of the kinds a journal's compact
// forms allow: a request put together from a blob whose hash is wrong, a
// list-change delta of no list, a compressed raw reply that is not base64.
var fuzzDamagedSeeds = []string{
	`{"type":"blob","hash":"sha256:00","json":{}}` + "\n" + `{"type":"model_call","turn":1,"request_ref":{"head":"{","keep":[3,9]}}`,
	`{"type":"model_call","left_off_delta":{"del":["a"],"sorted":true}}`,
	`{"type":"assistant","raw_gzip":"!!"}` + "\n" + `{"type":"tool_result","tool_call_id":"x"}`,
}

// FuzzReadJournal feeds damaged journals to the reader, the repair and the
// fold: none may panic, and a repaired fold keeps every tool call paired
// with one result.
func FuzzReadJournal(f *testing.F) {
	for _, s := range append(append([]string{}, fuzzJournalSeeds...), fuzzDamagedSeeds...) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxFuzzJournal {
			return
		}
		// A small buffer of the test's own: the reader's 1 MiB one,
		// allocated and cleared for each input, made 20 to 90 times the
		// cost of the read itself; and a line longer than the buffer takes
		// the path a line longer than 1 MiB takes in a real journal.
		events, _, err := journal.Read(bufio.NewReaderSize(bytes.NewReader(data), 256))
		if err != nil {
			return
		}
		fold, _, tail := rulebook.Repair(events)
		st := rulebook.New("fuzz", "m", event.DefaultSettings())
		for _, e := range fold {
			st.Apply(e)
		}
		for _, r := range tail {
			st.Apply(r)
		}
		// Calls that share an id (a damaged journal, or a server that
		// reuses ids, may give them) get a result each too.
		results, calls := map[string]int{}, map[string]int{}
		for _, en := range st.Entries.All() {
			if en.Kind == rulebook.EntryTool {
				results[en.ToolCallID]++
			}
			for _, tc := range en.ToolCalls {
				calls[tc.ID]++
			}
		}
		for id, n := range calls {
			if results[id] != n {
				t.Fatalf("%d call(s) %q have %d results after the repair", n, id, results[id])
			}
		}
	})
}

// The seeds are small, and the whole ones are journals the reader takes
// whole, so the fuzzer starts from the paths a real journal takes.
func TestFuzzJournalSeedsRead(t *testing.T) {
	for i, s := range append(append([]string{}, fuzzJournalSeeds...), fuzzDamagedSeeds...) {
		if len(s) > maxFuzzJournal*3/4 {
			t.Errorf("seed %d is %d bytes: keep seeds small, the fuzzer minimizes in quadratic time", i, len(s))
		}
	}
	for i, s := range fuzzJournalSeeds {
		events, problems, err := journal.Read(strings.NewReader(s))
		if err != nil || len(problems) > 0 || len(events) != strings.Count(s, "\n")+1 {
			t.Errorf("seed %d: %v %v, %d events", i, err, problems, len(events))
		}
	}
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
	events, problems, err := journal.Read(strings.NewReader(j))
	if err != nil || len(problems) > 0 || len(events) != 4 {
		t.Fatalf("read: %v %v, %d events", err, problems, len(events))
	}
	if a := events[2].(*event.Assistant); len(a.Text) != len(huge) {
		t.Fatalf("the reply came back %d bytes long", len(a.Text))
	}
}
