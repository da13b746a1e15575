package tools

import (
	"encoding/json"
	"strings"
	"testing"
)

const weatherSchema = `{
  "type": "object",
  "properties": {
    "city": {"type": "string", "description": "City name."},
    "units": {"type": "string", "enum": ["metric", "imperial"], "description": "Unit system."},
    "days": {"type": "integer", "minimum": 1, "maximum": 7},
    "filter": {"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}}}}
  },
  "required": ["city"],
  "additionalProperties": false
}`

func TestValidateArgs_ValidIsCompacted(t *testing.T) {
	got, err := ValidateArgs(json.RawMessage(weatherSchema), "{ \"city\" : \"Oslo\",\n \"days\": 3 }")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != `{"city":"Oslo","days":3}` {
		t.Fatalf("got %s", got)
	}
}

func TestValidateArgs_EmptyIsEmptyObject(t *testing.T) {
	got, err := ValidateArgs(json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}}}`), "  ")
	if err != nil || string(got) != "{}" {
		t.Fatalf("got %s, %v", got, err)
	}
	// ... and an empty object still has to satisfy "required".
	if _, err := ValidateArgs(json.RawMessage(weatherSchema), ""); err == nil || !strings.Contains(err.Error(), `"city"`) {
		t.Fatalf("missing required city: %v", err)
	}
}

func TestValidateArgs_NoSchemaAcceptsAnyObject(t *testing.T) {
	for _, schema := range []string{"", "null"} {
		got, err := ValidateArgs(json.RawMessage(schema), `{"a": [1, 2]}`)
		if err != nil || string(got) != `{"a":[1,2]}` {
			t.Errorf("schema %q: got %s, %v", schema, got, err)
		}
	}
}

func TestValidateArgs_MustBeAnObject(t *testing.T) {
	for args, want := range map[string]string{
		`[1]`:     "must be a JSON object, got an array",
		`"x"`:     "must be a JSON object, got a string",
		`null`:    "must be a JSON object, got a null",
		`{"a":`:   "not valid JSON",
		`{} {}`:   "not valid JSON",
		`{'a':1}`: "not valid JSON",
	} {
		_, err := ValidateArgs(json.RawMessage(weatherSchema), args)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", args, err, want)
		}
	}
}

func TestValidateArgs_ErrorsNameArgumentAndExpectation(t *testing.T) {
	cases := map[string][]string{
		`{"city":"Oslo","units":"kelvin"}`:          {`invalid argument "units"`, "kelvin", `"enum":["metric","imperial"]`},
		`{"city":"Oslo","days":9}`:                  {`invalid argument "days"`, "maximum: 9 is greater than 7", `"maximum":7`},
		`{"city":"Oslo","days":1.5}`:                {`invalid argument "days"`, `want "integer"`},
		`{"city":7}`:                                {`invalid argument "city"`, `want "string"`, `expected: {"type":"string"}`},
		`{"city":"Oslo","filter":{"tags":["a",2]}}`: {`invalid argument "filter.tags[]"`, `want "string"`},
		`{"units":"metric"}`:                        {"invalid arguments", `missing properties: ["city"]`},
		`{"city":"Oslo","colour":"red"}`:            {`unexpected additional properties ["colour"]`, "allowed properties: city, days, filter, units"},
	}
	for args, wants := range cases {
		_, err := ValidateArgs(json.RawMessage(weatherSchema), args)
		if err == nil {
			t.Errorf("%s: want an error", args)
			continue
		}
		msg := err.Error()
		for _, w := range wants {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: error %q lacks %q", args, msg, w)
			}
		}
		if strings.Contains(msg, "description") || strings.Contains(msg, "Unit system") {
			t.Errorf("%s: error quotes prose: %q", args, msg)
		}
		if n := strings.Count(msg, "\n"); n > 1 {
			t.Errorf("%s: error has %d lines, want at most 2: %q", args, n+1, msg)
		}
	}
}

func TestValidateArgs_OlderDraftSchema(t *testing.T) {
	schema := json.RawMessage(`{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"n":{"type":"integer"}}}`)
	if _, err := ValidateArgs(schema, `{"n":2}`); err != nil {
		t.Fatalf("valid arguments refused: %v", err)
	}
	if _, err := ValidateArgs(schema, `{"n":"two"}`); err == nil || !strings.Contains(err.Error(), `invalid argument "n"`) {
		t.Fatalf("err = %v", err)
	}
	draft7 := json.RawMessage(`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"n":{"type":"integer"}}}`)
	if _, err := ValidateArgs(draft7, `{"n":"two"}`); err == nil || !strings.Contains(err.Error(), `invalid argument "n"`) {
		t.Fatalf("draft-07: err = %v", err)
	}
}

func TestValidateArgs_BadSchema(t *testing.T) {
	_, err := ValidateArgs(json.RawMessage(`{"type": 5}`), `{}`)
	if err == nil || !strings.Contains(err.Error(), "not a valid JSON Schema") {
		t.Fatalf("err = %v", err)
	}
}

func TestValidateArgs_SchemaResolvedOnce(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"once":{"type":"boolean"}}}`)
	if _, err := ValidateArgs(schema, `{"once":true}`); err != nil {
		t.Fatal(err)
	}
	first, _ := resolveSchema(schema)
	if _, err := ValidateArgs(schema, `{"once":"no"}`); err == nil {
		t.Fatal("want an error")
	}
	second, _ := resolveSchema(schema)
	if first == nil || first != second || first.rs == nil {
		t.Fatal("schema resolved again")
	}
}

func BenchmarkValidateArgs(b *testing.B) {
	schema := json.RawMessage(weatherSchema)
	args := `{"city":"Oslo","units":"metric","days":3,"filter":{"tags":["a","b"]}}`
	for b.Loop() {
		if _, err := ValidateArgs(schema, args); err != nil {
			b.Fatal(err)
		}
	}
}
