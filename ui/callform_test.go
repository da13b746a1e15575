package ui

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"skillet/harness/event"
)

func TestCallFormBuiltFromSchema(t *testing.T) {
	d := newDriver(t, nil, 160, 48)
	d.send("/load account-review")
	d.send("/call get_account_activity")
	f, ok := d.m.overlay.(*callForm)
	if !ok {
		t.Fatalf("overlay %T", d.m.overlay)
	}
	var names []string
	for _, ff := range f.fields {
		names = append(names, ff.name+":"+ff.typ)
	}
	if got := strings.Join(names, " "); got != "account_id:string page:integer include_pending:boolean" {
		t.Fatalf("fields = %s (want the schema's order and types)", got)
	}
	s := d.screen()
	for _, want := range []string{"Call get_account_activity by hand", "account_id * (string) The account to read.", "page (integer)", "a number", "true or false"} {
		if !strings.Contains(s, want) {
			t.Errorf("form lacks %q:\n%s", want, s)
		}
	}
	// the required field is checked before anything runs
	d.key("ctrl+r")
	if !strings.Contains(f.err, "account_id is required") {
		t.Fatalf("err = %q", f.err)
	}
	d.typeText("ACME-7")
	d.key("tab")
	d.typeText("two")
	d.key("ctrl+r")
	if !strings.Contains(f.err, `page: want a whole number, got "two"`) {
		t.Fatalf("err = %q", f.err)
	}
	for range 3 {
		d.key("backspace")
	}
	d.typeText("2")
	d.key("tab")
	d.typeText("yes")
	if _, err := f.args(); err == nil || !strings.Contains(err.Error(), "include_pending") {
		t.Fatalf("bad boolean accepted: %v", err)
	}
	for range 3 {
		d.key("backspace")
	}
	d.typeText("true")
	args, err := f.args()
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(args), &got); err != nil || got["account_id"] != "ACME-7" || got["page"] != 2.0 || got["include_pending"] != true {
		t.Fatalf("args = %s", args)
	}
	d.key("enter") // enter on the last field runs
	d.settle()
	if f.result == nil || f.resErr != nil {
		t.Fatalf("no result: %v", f.resErr)
	}
	// the response tool's answer, filled from the form's arguments
	if s := d.screen(); !strings.Contains(s, `"account": "ACME-7"`) || !regexp.MustCompile(`result · \d+ ms`).MatchString(s) {
		t.Fatalf("result not shown:\n%s", s)
	}
	// the call is in the transcript as a manual call
	d.key("esc")
	if s := d.screen(); !strings.Contains(s, "manual call") {
		t.Fatalf("manual call not in the transcript:\n%s", s)
	}
}

func TestCallFormSchemaValidation(t *testing.T) {
	tool := event.ToolInfo{Name: "get_weather", Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"units":{"type":"string","enum":["metric","imperial"]}},"required":["city"]}`)}
	f := newCallForm(newTheme(true), nil, tool)
	f.fields[0].in.SetValue("Oslo")
	f.fields[1].in.SetValue("kelvin")
	if _, err := f.args(); err == nil || !strings.Contains(err.Error(), "do not match the schema") {
		t.Fatalf("enum not enforced: %v", err)
	}
	if !strings.Contains(f.fields[1].in.Placeholder, "one of metric, imperial") {
		t.Fatalf("enum hint = %q", f.fields[1].in.Placeholder)
	}
	f.fields[1].in.SetValue("metric")
	if a, err := f.args(); err != nil || a != `{"city":"Oslo","units":"metric"}` {
		t.Fatalf("args %s, %v", a, err)
	}
}

func TestCallFormWithoutPropertiesTakesJSON(t *testing.T) {
	f := newCallForm(newTheme(true), nil, event.ToolInfo{Name: "ping"})
	if !f.rawJSON || len(f.fields) != 1 {
		t.Fatalf("raw=%v fields=%d", f.rawJSON, len(f.fields))
	}
	if a, err := f.args(); err != nil || a != "{}" {
		t.Fatalf("empty args: %s %v", a, err)
	}
	f.fields[0].in.SetValue(`[1]`)
	if _, err := f.args(); err == nil {
		t.Fatal("a JSON array accepted as the arguments object")
	}
}

func TestCallFormRefusesGoneTool(t *testing.T) {
	f := newCallForm(newTheme(true), nil, event.ToolInfo{Name: "tone_check", Gone: true})
	if cmd := f.run(); cmd != nil || !strings.Contains(f.err, "left the request") {
		t.Fatalf("gone tool ran: %q", f.err)
	}
}

func TestSlashCallWithJSONRunsDirectly(t *testing.T) {
	d := newDriver(t, nil, 120, 40)
	d.send(`/call get_weather {"city":"Oslo"}`)
	if d.m.flashIsErr || !strings.Contains(d.m.flash, "called get_weather: ok") {
		t.Fatalf("flash = %q", d.m.flash)
	}
	last := d.m.tr.entries.At(d.m.tr.entries.Len() - 1)
	if last.ToolName != "get_weather" || !strings.Contains(last.Text, `"city":"Oslo"`) {
		t.Fatalf("last entry %+v", last)
	}
}
