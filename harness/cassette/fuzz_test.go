package cassette

import (
	"bytes"
	"testing"
)

// FuzzRead feeds damaged cassettes to Read and Delta: they may refuse,
// never panic, and what Read keeps is whole.
func FuzzRead(f *testing.F) {
	f.Add([]byte(`{"kind":"header","format":1}` + "\n" + `{"kind":"call","n":1,"request":{"model":"m","messages":[]}}` + "\n"))
	f.Add([]byte(`{"kind":"header","format":1}` + "\n" + `{"kind":"call","n":1,"request":{"mod`))
	f.Add([]byte(`{"kind":"header"}` + "\n" + `{"kind":"tool","content":1}` + "\n"))
	f.Add([]byte("\x00\xff\n{}"))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := Read(bytes.NewReader(b))
		if err != nil {
			return
		}
		for _, call := range c.Calls {
			if call == nil {
				t.Fatal("a nil call was kept")
			}
			_ = Delta(call.Body(), b)
			_, _ = ToolSequence(call.Body())
		}
	})
}

// FuzzDelta compares arbitrary bodies: Delta is nil exactly when Same.
func FuzzDelta(f *testing.F) {
	f.Add([]byte(`{"model":"a","messages":[{"role":"user","content":"x"}]}`), []byte(`{"messages":[{"role":"user","content":"y"}],"model":"a"}`))
	f.Add([]byte(`{"tools":[{"function":{"name":"t"}}]}`), []byte(`[1,2]`))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		if d := Delta(a, b); (d == nil) != Same(a, b) {
			t.Fatalf("Delta %v but Same %v", d, Same(a, b))
		}
	})
}
