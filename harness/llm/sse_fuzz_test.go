package llm

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// FuzzSSEReader feeds arbitrary bytes to the SSE reader and to the whole
// stream reading path: they must never panic nor loop, an event never holds
// more than the input, and a line or event over the bound is an error, not
// growth. `go test` runs the seeds; `go test -fuzz FuzzSSEReader` explores.
func FuzzSSEReader(f *testing.F) {
	for _, tc := range streamCases {
		f.Add([]byte(tc.transcript))
	}
	for _, s := range []string{
		"", "\n", "\r\n\r\n", ":", ": keep-alive\n\n", "data:", "data", "event: error\n\n",
		"error: boom\n\n", "data: [DONE]\n\n", "{\"choices\":[]}\n{\"choices\":[]}\n",
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"}}]}\ndata: {}\n",
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"name\":\"f\",\"arguments\":\"{\"}}]}}]}\n\n",
		"data: " + string(bytes.Repeat([]byte("a"), 5000)) + "\n\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		const bound = 4 << 10
		r := newSSEReader(bytes.NewReader(in))
		r.max = bound
		progress := 0
		r.progress = func() { progress++ }
		for events := 0; ; events++ {
			ev, err := r.next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				if !errors.Is(err, errEventTooLong) {
					t.Fatalf("unexpected error %v", err)
				}
				if len(in) < bound {
					t.Fatalf("%v from %d bytes of input, under the bound %d", err, len(in), bound)
				}
				break
			}
			if len(ev.data) > len(in) {
				t.Fatalf("an event of %d bytes from %d bytes of input", len(ev.data), len(in))
			}
			if events > len(in)+1 {
				t.Fatalf("%d events from %d bytes: the reader loops", events, len(in))
			}
		}
		if progress > len(in) {
			t.Fatalf("%d progress calls from %d bytes", progress, len(in))
		}

		asm := &assembler{max: bound, newID: func() string { return "call_1" },
			hideText: newKeyFilter([]string{"sk-fuzz-key-0123"}), hideReasoning: newKeyFilter([]string{"sk-fuzz-key-0123"})}
		readStream(bytes.NewReader(in), asm, nil)
		asm.flush()
		reply := asm.reply(true)
		if n := len(reply.Message.Content) + len(reply.Reasoning); n > bound {
			t.Fatalf("a reply of %d bytes past the bound %d", n, bound)
		}
	})
}
