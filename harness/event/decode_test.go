package event

import (
	"encoding/json"
	"reflect"
	"testing"

	gojson "github.com/goccy/go-json"
)

// The fast decoder gives what encoding/json gives, value for value and
// error for error, on the lines a journal holds and on odd ones: escapes,
// lone surrogates, keys in another case or repeated, nulls, unknown
// fields, numbers out of range or of the wrong kind, trailing bytes. On
// invalid UTF-8 the two differ, and Unmarshal leaves such a line to
// encoding/json.
func TestFastDecodeAgreesWithEncodingJSON(t *testing.T) {
	cases := []string{
		`{"type":"assistant","turn":1,"text":"a\ud800b","tool_calls":[{"id":"x","name":"n","arguments":"{}","extra":{"a":[1,2,{"b":null}]}}]}`,
		`{"type":"assistant","TURN":2,"Text":"case","text":"dup"}`,
		`{"type":"assistant","turn":null,"text":null,"tool_calls":null,"usage":null}`,
		`{"type":"assistant","turn":1,"unknown":{"deep":[1,2,3]},"text":"\u00e9\n\t\"x\\"}`,
		`{"type":"model_call","turn":1,"call":2,"request":{"a":1},"offered":["a","b"],"left_off_delta":{"add":["x"],"del":["y"],"sorted":true},"request_ref":{"head":"h","keep":[0,3],"first":["s"],"tools":"t"}}`,
		`{"type":"model_call","turn":1,"call":2,"request":null}`,
		`{"type":"turn_end","turn":3,"uses":[{"role":"SKILL","name":"a","version":"1","execution_id":"x-1","reused":true}],"stop_reason":"done","answer":"ok"}`,
		`{"type":"assistant","turn":1.5}`,
		`{"type":"assistant","turn":"1"}`,
		`{"type":"assistant","turn":1e3}`,
		`{"type":"assistant","turn":99999999999999999999}`,
		`{"type":"assistant","turn":1} trailing`,
		`{"type":"assistant","turn":1,}`,
		`{"type":"session_start","limits":{"max_loaded_skills":3}}`,
		`{"type":"assistant","time":"2026-12-01T22:35:18.777640334Z"}`,
		`{"type":"assistant","time":"bad"}`,
		`{"type":"assistant","usage":{"prompt_tokens":5,"prompt_tokens_details":{"cached_tokens":3}}}`,
	}
	for _, c := range cases {
		typ, _ := TypeOf([]byte(c))
		a, b := eventFactories[typ](), eventFactories[typ]()
		e1 := json.Unmarshal([]byte(c), a)
		e2 := gojson.Unmarshal([]byte(c), b)
		if (e1 == nil) != (e2 == nil) || (e1 == nil && !reflect.DeepEqual(a, b)) {
			t.Errorf("%s\nencoding/json: %v %+v\ngo-json: %v %+v", c, e1, a, e2, b)
		}
		got, err := Unmarshal([]byte(c))
		if (err == nil) != (e1 == nil) || (err == nil && !reflect.DeepEqual(got, a)) {
			t.Errorf("%s: Unmarshal gives %v %+v, encoding/json %v %+v", c, err, got, e1, a)
		}
	}
	bad := `{"type":"tool_result","turn":1,"content":"` + "\xff\xfe" + `","is_error":true}`
	got, err := Unmarshal([]byte(bad))
	if err != nil || got.(*ToolResult).Content != "\ufffd\ufffd" {
		t.Errorf("invalid UTF-8 is not mended as encoding/json mends it: %v %q", err, got)
	}
}
