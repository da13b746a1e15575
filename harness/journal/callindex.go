package journal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"skillet/harness/event"
)

// FrameEvery is how often the call index keeps a call's whole list of
// message blobs: any other call is put together from the one before it by
// reading at most FrameEvery-1 model_call lines.
const FrameEvery = 32

// CallIndex finds the model calls of a journal by offset, so the inspector
// reads one call's request and reply without holding the others: where
// each model_call line and its reply's assistant line start, where each
// blob line starts, and every FrameEvery-th call's message blobs (each
// model_call line names its messages as a change from the call before).
// It is built on first use and extended as the journal grows.
type CallIndex struct {
	// mu guards every field below; it is held with the session's lock
	// only by Export, as the session stores its fold at a turn's end or
	// as it closes.
	mu    sync.Mutex
	path  string
	size  int64
	calls []CallPos
	blobs map[BlobKey]int64
	// frames are the message blobs of calls 0, FrameEvery, 2·FrameEvery…
	frames [][]BlobKey
	// last are the message blobs of the last call indexed.
	last []BlobKey
}

// CallPos is where a call's lines start; Reply is -1 until its reply is
// indexed.
type CallPos struct{ At, Reply int64 }

// Seed gives the index what a fold of the journal at path up to offset
// size found: where each call's lines start, where each blob line starts
// (by hash), the message blobs of every FrameEvery-th call and of the
// last, so the first call read back costs one call, not the journal.
// The index takes blobs as it is: the caller must not change it after.
func (ix *CallIndex) Seed(path string, size int64, calls []CallPos, blobs map[BlobKey]int64, frames [][]BlobKey, last []string) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.path, ix.size, ix.calls, ix.blobs, ix.frames, ix.last = path, size, calls, blobs, frames, BlobKeys(last)
}

// BlobKeys are the keys of blob hashes; a hash that is not one is left
// out, as the index leaves out a request that names one.
func BlobKeys(hashes []string) []BlobKey {
	out := make([]BlobKey, 0, len(hashes))
	for _, h := range hashes {
		if k, ok := KeyOf(h); ok {
			out = append(out, k)
		}
	}
	return out
}

// Body puts together call i's request and reply from the journal at path.
func (ix *CallIndex) Body(path string, i int) ([]byte, string, error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	f, err := OpenRegular(path)
	if err != nil {
		return nil, "", fmt.Errorf("read journal: %w", err)
	}
	defer f.Close()
	if ix.path != path {
		// a new journal (the session was cleared): index it afresh
		ix.path, ix.size, ix.calls, ix.blobs, ix.frames, ix.last = path, 0, nil, map[BlobKey]int64{}, nil, nil
	}
	if i >= len(ix.calls) || ix.calls[i].Reply < 0 {
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
	if at := ix.calls[i].Reply; at >= 0 {
		if line, err := LineAt(f, at); err == nil {
			if e, err := event.Unmarshal(line); err == nil {
				if a, ok := e.(*event.Assistant); ok && Unzip(a) == nil {
					reply = a.Raw
				}
			}
		}
	}
	return req, reply, nil
}

// extend indexes the journal's lines past what is indexed, up to its last
// whole line.
func (ix *CallIndex) extend(f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("read journal: %w", err)
	}
	lr := NewLineReader(io.NewSectionReader(f, ix.size, fi.Size()-ix.size), 0)
	for {
		line, err := lr.Next()
		var tooLong *LineTooLongError
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
func (ix *CallIndex) note(at int64, line []byte) {
	if h, ok := BlobHashOf(line); ok {
		if k, ok := KeyOf(h); ok {
			ix.blobs[k] = at
		}
		return
	}
	switch typ, _ := event.TypeOf(line); typ {
	case event.TypeModelCall:
		e, err := event.Unmarshal(line)
		mc, ok := e.(*event.ModelCall)
		if err != nil || !ok {
			return
		}
		if mc.Ref != nil {
			if refs, ok := expand(mc.Ref, ix.last); ok {
				ix.last = refs
			}
		}
		if len(ix.calls)%FrameEvery == 0 {
			ix.frames = append(ix.frames, ix.last)
		}
		ix.calls = append(ix.calls, CallPos{At: at, Reply: -1})
	case event.TypeAssistant:
		if n := len(ix.calls); n > 0 && ix.calls[n-1].Reply < 0 {
			var a struct {
				Manual bool `json:"manual"`
			}
			if json.Unmarshal(line, &a) == nil && !a.Manual {
				ix.calls[n-1].Reply = at
			}
		}
	}
}

// expand is the whole list of a request's message blobs, from its ref and
// the list of the call before (as the journal's reader does).
func expand(r *event.RequestRef, prev []BlobKey) ([]BlobKey, bool) {
	if r.Keep[0] < 0 || r.Keep[0] > r.Keep[1] || r.Keep[1] > len(prev) {
		return nil, false
	}
	out := make([]BlobKey, 0, len(r.First)+r.Keep[1]-r.Keep[0]+len(r.Last))
	for _, h := range r.First {
		k, ok := KeyOf(h)
		if !ok {
			return nil, false
		}
		out = append(out, k)
	}
	out = append(out, prev[r.Keep[0]:r.Keep[1]]...)
	for _, h := range r.Last {
		k, ok := KeyOf(h)
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
func (ix *CallIndex) request(f *os.File, i int) ([]byte, error) {
	from := i - i%FrameEvery
	refs := ix.frames[from/FrameEvery] // the messages of call from
	var mc *event.ModelCall
	for j := from; j <= i; j++ {
		line, err := LineAt(f, ix.calls[j].At)
		if err != nil {
			return nil, err
		}
		e, err := event.Unmarshal(line)
		if err != nil {
			return nil, fmt.Errorf("its model_call line: %w", err)
		}
		var ok bool
		if mc, ok = e.(*event.ModelCall); !ok {
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
	var tools *BlobKey
	if mc.Ref.Tools != "" {
		k, ok := KeyOf(mc.Ref.Tools)
		if !ok {
			return nil, fmt.Errorf("tools blob %s: not a blob hash", mc.Ref.Tools)
		}
		tools = &k
	}
	return AssembleBody(mc.Ref, refs, tools, func(k BlobKey) ([]byte, error) { return ix.blob(f, k) })
}

// blob reads one blob's content, checking it against its hash.
func (ix *CallIndex) blob(f *os.File, k BlobKey) ([]byte, error) {
	h := fmt.Sprintf("sha256:%x", k[:])
	at, ok := ix.blobs[k]
	if !ok {
		return nil, fmt.Errorf("blob %s is missing from the journal", h)
	}
	line, err := LineAt(f, at)
	if err != nil {
		return nil, err
	}
	got, b, err := ReadBlob(line)
	if err == nil && got != h {
		err = fmt.Errorf("the line at %d holds blob %s", at, got)
	}
	if err != nil {
		return nil, fmt.Errorf("blob %s: %w", h, err)
	}
	return b, nil
}
