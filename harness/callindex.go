package harness

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"skillet/harness/event"
	"skillet/harness/journal"
	"sync"
)

// frameEvery is how often the call index keeps a call's whole list of
// message blobs: any other call is put together from the one before it by
// reading at most frameEvery-1 model_call lines.
const frameEvery = 32

// callIndex finds the model calls of a journal by offset, so the inspector
// reads one call's request and reply without holding the others: where
// each model_call line and its reply's assistant line start, where each
// blob line starts, and every frameEvery-th call's message blobs (each
// model_call line names its messages as a change from the call before).
// It is built on first use and extended as the journal grows.
type callIndex struct {
	// mu guards every field below; it is never held with the session's
	// lock.
	mu    sync.Mutex
	path  string
	size  int64
	calls []callPos
	blobs map[journal.BlobKey]int64
	// frames are the message blobs of calls 0, frameEvery, 2·frameEvery…
	frames [][]journal.BlobKey
	// last are the message blobs of the last call indexed.
	last []journal.BlobKey
}

// callPos is where a call's lines start; reply is -1 until its reply is
// indexed.
type callPos struct{ at, reply int64 }

// ModelCall returns model call i (0 is the session's first) with its exact
// request and raw reply, reading them from the journal when memory no
// longer holds them.
func (s *Session) ModelCall(i int) (CallRecord, error) {
	var n int
	rec := read(s, func(f *frame) CallRecord {
		n = len(f.st.Calls)
		if i >= 0 && i < n {
			return f.st.Calls[i]
		}
		return CallRecord{}
	})
	switch {
	case i < 0 || i >= n:
		return CallRecord{}, fmt.Errorf("model call %d: the session has made %d", i+1, n)
	case rec.Request != nil:
		return rec, nil
	}
	path := s.journalPath()
	if path == "" {
		return rec, fmt.Errorf("model call %d: its request is not kept and the session keeps no journal", i+1)
	}
	req, reply, err := s.calls.body(path, i)
	if err != nil {
		return rec, fmt.Errorf("model call %d: %w", i+1, err)
	}
	rec.Request = req
	if rec.Reply == "" {
		rec.Reply = reply
	}
	return rec, nil
}

// seed gives the index what a fold of the journal at path up to offset
// size found: where each call's lines start, where each blob line starts
// (by hash), the message blobs of every frameEvery-th call and of the
// last, so the first call read back costs one call, not the journal.
// The index takes blobs as it is: the caller must not change it after.
func (ix *callIndex) seed(path string, size int64, calls []callPos, blobs map[journal.BlobKey]int64, frames [][]journal.BlobKey, last []string) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.path, ix.size, ix.calls, ix.blobs, ix.frames, ix.last = path, size, calls, blobs, frames, blobKeys(last)
}

// blobKeys are the keys of blob hashes; a hash that is not one is left
// out, as the index leaves out a request that names one.
func blobKeys(hashes []string) []journal.BlobKey {
	out := make([]journal.BlobKey, 0, len(hashes))
	for _, h := range hashes {
		if k, ok := journal.KeyOf(h); ok {
			out = append(out, k)
		}
	}
	return out
}

// body puts together call i's request and reply from the journal at path.
func (ix *callIndex) body(path string, i int) ([]byte, string, error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	f, err := journal.OpenRegular(path)
	if err != nil {
		return nil, "", fmt.Errorf("read journal: %w", err)
	}
	defer f.Close()
	if ix.path != path {
		// a new journal (the session was cleared): index it afresh
		ix.path, ix.size, ix.calls, ix.blobs, ix.frames, ix.last = path, 0, nil, map[journal.BlobKey]int64{}, nil, nil
	}
	if i >= len(ix.calls) || ix.calls[i].reply < 0 {
		// not indexed yet, or indexed before its reply was written
		if err := ix.extend(f); err != nil {
			return nil, "", err
		}
	}
	if i >= len(ix.calls) {
		return nil, "", fmt.Errorf("the journal holds %d model calls", len(ix.calls))
	}
	req, err := ix.request(f, i)
	if err != nil {
		return nil, "", err
	}
	reply := ""
	if at := ix.calls[i].reply; at >= 0 {
		if line, err := journal.LineAt(f, at); err == nil {
			if e, err := UnmarshalEvent(line); err == nil {
				if a, ok := e.(*Assistant); ok && journal.Unzip(a) == nil {
					reply = a.Raw
				}
			}
		}
	}
	return req, reply, nil
}

// extend indexes the journal's lines past what is indexed, up to its last
// whole line.
func (ix *callIndex) extend(f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("read journal: %w", err)
	}
	lr := journal.NewLineReader(io.NewSectionReader(f, ix.size, fi.Size()-ix.size), 0)
	for {
		line, err := lr.Next()
		var tooLong *journal.LineTooLongError
		if errors.As(err, &tooLong) {
			return fmt.Errorf("read journal: %w", err)
		}
		if err != nil {
			return nil // the rest is not a whole line yet
		}
		at := ix.size
		ix.size += int64(len(line))
		ix.note(at, bytes.TrimSpace(line))
	}
}

// note indexes one line starting at offset at.
func (ix *callIndex) note(at int64, line []byte) {
	if h, ok := journal.BlobHashOf(line); ok {
		if k, ok := journal.KeyOf(h); ok {
			ix.blobs[k] = at
		}
		return
	}
	switch typ, _ := event.TypeOf(line); typ {
	case TypeModelCall:
		e, err := UnmarshalEvent(line)
		mc, ok := e.(*ModelCall)
		if err != nil || !ok {
			return
		}
		if mc.Ref != nil {
			if refs, ok := expand(mc.Ref, ix.last); ok {
				ix.last = refs
			}
		}
		if len(ix.calls)%frameEvery == 0 {
			ix.frames = append(ix.frames, ix.last)
		}
		ix.calls = append(ix.calls, callPos{at: at, reply: -1})
	case TypeAssistant:
		if n := len(ix.calls); n > 0 && ix.calls[n-1].reply < 0 {
			var a struct {
				Manual bool `json:"manual"`
			}
			if json.Unmarshal(line, &a) == nil && !a.Manual {
				ix.calls[n-1].reply = at
			}
		}
	}
}

// expand is the whole list of a request's message blobs, from its ref and
// the list of the call before (as the journal's reader does).
func expand(r *RequestRef, prev []journal.BlobKey) ([]journal.BlobKey, bool) {
	if r.Keep[0] < 0 || r.Keep[0] > r.Keep[1] || r.Keep[1] > len(prev) {
		return nil, false
	}
	out := make([]journal.BlobKey, 0, len(r.First)+r.Keep[1]-r.Keep[0]+len(r.Last))
	for _, h := range r.First {
		k, ok := journal.KeyOf(h)
		if !ok {
			return nil, false
		}
		out = append(out, k)
	}
	out = append(out, prev[r.Keep[0]:r.Keep[1]]...)
	for _, h := range r.Last {
		k, ok := journal.KeyOf(h)
		if !ok {
			return nil, false
		}
		out = append(out, k)
	}
	return out, true
}

// request puts together call i's request body: from the nearest frame at
// or before it, each model_call line up to it names its messages as a
// change from the one before.
func (ix *callIndex) request(f *os.File, i int) ([]byte, error) {
	from := i - i%frameEvery
	refs := ix.frames[from/frameEvery] // the messages of call from
	var mc *ModelCall
	for j := from; j <= i; j++ {
		line, err := journal.LineAt(f, ix.calls[j].at)
		if err != nil {
			return nil, err
		}
		e, err := UnmarshalEvent(line)
		if err != nil {
			return nil, fmt.Errorf("its model_call line: %w", err)
		}
		var ok bool
		if mc, ok = e.(*ModelCall); !ok {
			return nil, fmt.Errorf("the journal changed under the index")
		}
		if j > from && mc.Ref != nil {
			if refs, ok = expand(mc.Ref, refs); !ok {
				return nil, fmt.Errorf("model_call %d keeps messages its predecessor did not have", mc.Call)
			}
		}
	}
	if mc.Ref == nil {
		return mc.Request, nil
	}
	var tools *journal.BlobKey
	if mc.Ref.Tools != "" {
		k, ok := journal.KeyOf(mc.Ref.Tools)
		if !ok {
			return nil, fmt.Errorf("tools blob %s: not a blob hash", mc.Ref.Tools)
		}
		tools = &k
	}
	return journal.AssembleBody(mc.Ref, refs, tools, func(k journal.BlobKey) ([]byte, error) { return ix.blob(f, k) })
}

// blob reads one blob's content, checking it against its hash.
func (ix *callIndex) blob(f *os.File, k journal.BlobKey) ([]byte, error) {
	h := fmt.Sprintf("sha256:%x", k[:])
	at, ok := ix.blobs[k]
	if !ok {
		return nil, fmt.Errorf("blob %s is missing from the journal", h)
	}
	line, err := journal.LineAt(f, at)
	if err != nil {
		return nil, err
	}
	got, b, err := journal.ReadBlob(line)
	if err == nil && got != h {
		err = fmt.Errorf("the line at %d holds blob %s", at, got)
	}
	if err != nil {
		return nil, fmt.Errorf("blob %s: %w", h, err)
	}
	return b, nil
}
