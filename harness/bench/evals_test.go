package bench_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"skillet/harness/bench"
)

func TestParseEvals_SkillCreatorsExampleAsItIs(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "skill-creator", "evals.json"))
	if err != nil {
		t.Fatal(err)
	}
	ev, err := bench.ParseEvals(data, "evals.json")
	if err != nil {
		t.Fatal(err)
	}
	if ev.SkillName != "example-skill" || len(ev.Evals) != 1 {
		t.Fatalf("read %+v", ev)
	}
	e := ev.Evals[0]
	if e.ID != 1 || e.Prompt != "User's example prompt" || e.ExpectedOutput != "Description of expected result" ||
		len(e.Files) != 1 || e.Files[0] != "evals/files/sample1.pdf" || len(e.Expectations) != 2 || len(e.Checks) != 0 {
		t.Errorf("eval read as %+v", e)
	}
}

func TestParseEvals_ChecksOfEveryKind(t *testing.T) {
	ev, err := bench.ParseEvals([]byte(`{"skill_name":"s","evals":[{"id":3,"prompt":"p","checks":[
	 {"kind":"file_exists","path":"a.txt"},
	 {"kind":"file_contains","path":"a.txt","text":"hi"},
	 {"kind":"file_matches","path":"a.txt","regex":"h+i"},
	 {"kind":"json_path","path":"o.json","pointer":"/a~1b/0","equals":{"x":1}},
	 {"kind":"answer_contains","text":"done"},
	 {"kind":"answer_matches","regex":"^ok"},
	 {"kind":"tool_called","name":"shell","arguments":{"command":"make"}},
	 {"kind":"tool_called","name":"write"},
	 {"kind":"skill_loaded","skill":"s"},
	 {"kind":"command","run":"test -f a.txt"}]}]}`), "x.json")
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, c := range ev.Evals[0].Checks {
		labels = append(labels, c.Label())
	}
	want := []string{`file_exists a.txt`, `file_contains a.txt "hi"`, `file_matches a.txt /h+i/`, `json_path o.json /a~1b/0 equals {"x":1}`,
		`answer_contains "done"`, `answer_matches /^ok/`, `tool_called shell {"command":"make"}`, `tool_called write`, `skill_loaded s`, `command test -f a.txt`}
	if strings.Join(labels, "\n") != strings.Join(want, "\n") {
		t.Errorf("labels:\n%s\nwant:\n%s", strings.Join(labels, "\n"), strings.Join(want, "\n"))
	}
}

func TestParseEvals_BadInputNamesTheField(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`[{"query":"x","should_trigger":true}]`, "trigger queries"},
		{`{"skill_name":"s"}`, `no "evals" field`},
		{`{"skill_name":"s","evals":{}}`, "evals: want a list"},
		{`{"skill_name":"s","evals":[]}`, "the list is empty"},
		{`{"evals":[{"prompt":"p","expectations":["e"]}]}`, "evals[0].id: missing"},
		{`{"evals":[{"id":"one","prompt":"p","expectations":["e"]}]}`, `evals[0].id: "one" is not a whole number`},
		{`{"evals":[{"id":1,"expectations":["e"]}]}`, "evals[0].prompt: missing"},
		{`{"evals":[{"id":1,"prompt":"p","expectations":"e"}]}`, "evals[0].expectations: want a list"},
		{`{"evals":[{"id":1,"prompt":"p"}]}`, "nothing to grade"},
		{`{"evals":[{"id":1,"prompt":"p","expectations":["a"]},{"id":1,"prompt":"q","expectations":["b"]}]}`, "evals[1].id: 1 is used twice"},
		{`{"evals":[{"id":1,"prompt":"p","checks":[{"kind":"file_size","path":"a"}]}]}`, `evals[0].checks[0]: kind "file_size" is unknown; want one of answer_contains`},
		{`{"evals":[{"id":1,"prompt":"p","checks":[{"path":"a"}]}]}`, "checks[0]: kind: missing"},
		{`{"evals":[{"id":1,"prompt":"p","checks":[{"kind":"file_contains","path":"a"}]}]}`, "file_contains: text is missing"},
		{`{"evals":[{"id":1,"prompt":"p","checks":[{"kind":"file_exists","path":"a","text":"x"}]}]}`, `file_exists: "text" is not a field of it`},
		{`{"evals":[{"id":1,"prompt":"p","checks":[{"kind":"answer_matches","regex":"(("}]}]}`, "answer_matches: regex"},
		{`{"evals":[{"id":1,"prompt":"p","checks":[{"kind":"json_path","path":"a","pointer":"a/b","equals":1}]}]}`, `pointer "a/b"`},
		{`{"evals":[{"id":1,"prompt":"p","checks":[{"kind":"file_exists","path":"../up"}]}]}`, "leaves the run's workspace"},
		{`not json`, "not JSON"},
		{`{"evals":[{"id":1,"prompt":"p","checks":[{"kind":"json_path","path":"a","pointer":null,"equals":1}]}]}`, "pointer is null"},
		{`{"evals":[{"id":1,"prompt":"p","checks":[{"kind":"file_contains","path":"a","text":5}]}]}`, "file_contains: json: cannot unmarshal number"},
		{`{"evals":[{"id":1,"prompt":"p","checks":[{"kind":7}]}]}`, "kind: missing or not a string"},
		{`{"evals":[{"id":1,"prompt":"p","checks":["file_exists"]}]}`, "checks[0]: want an object with a kind"},
	} {
		_, err := bench.ParseEvals([]byte(c.in), "evals.json")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.in, err, c.want)
		}
	}
}

func TestReadEvals_MissingFilesAreNamed(t *testing.T) {
	dir := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(dir, "evals"), 0o755))
	path := filepath.Join(dir, "evals", "evals.json")
	must(t, os.WriteFile(path, []byte(`{"evals":[{"id":1,"prompt":"p","files":["evals/files/gone.csv"],"expectations":["e"]}]}`), 0o644))
	_, err := bench.ReadEvals(path, "")
	if err == nil || !strings.Contains(err.Error(), "evals[0].files[0]: evals/files/gone.csv is missing") {
		t.Errorf("error %v", err)
	}
	must(t, os.WriteFile(path, []byte(`{"evals":[{"id":1,"prompt":"p","files":["../../etc/passwd"],"expectations":["e"]}]}`), 0o644))
	if _, err := bench.ReadEvals(path, ""); err == nil || !strings.Contains(err.Error(), "leaves the skill folder") {
		t.Errorf("a file outside the skill: %v", err)
	}
	if _, err := bench.SkillEvals(t.TempDir(), "x"); err == nil || !strings.Contains(err.Error(), "skill x has no evals/evals.json") {
		t.Errorf("no evals file: %v", err)
	}
}

func FuzzParseEvals(f *testing.F) {
	f.Add([]byte(scriptedEvals))
	f.Add([]byte(`{"evals":[{"id":1,"prompt":"p","checks":[{"kind":"json_path","path":"a","pointer":"/~","equals":null}]}]}`))
	f.Add([]byte(`[{"query":"x"}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ev, err := bench.ParseEvals(data, "f")
		if err != nil {
			return
		}
		for _, e := range ev.Evals {
			for _, c := range e.Checks {
				_ = c.Label()
			}
		}
	})
}
