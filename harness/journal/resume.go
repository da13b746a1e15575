package journal

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
)

// CodecState is what a codec knows of the lines before a point of the
// journal that the lines after it need: the last request's message blobs
// and the last left-off list (model_call lines name both as a change).
type CodecState struct {
	LastMsgs      []string
	LastLeftOff   []string
	InlineLeftOff bool
}

// State is what the codec knows that the lines after the last one it
// read or wrote need, copied.
func (c *Codec) State() CodecState {
	return CodecState{LastMsgs: slices.Clone(c.lastMsgs), LastLeftOff: slices.Clone(c.lastLeftOff), InlineLeftOff: c.inlineLeftOff}
}

// CodecState is what the writer's codec knows after the last line
// written (see Codec.State).
func (j *Writer) CodecState() CodecState {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.codec.State()
}

// Size is where the next line the writer appends starts, -1 when a write
// failed and that is not known.
func (j *Writer) Size() int64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.size
}

// ResumeReader reads a journal from offset at on, as a lazy Reader that
// had read every line before it would: r yields the journal's bytes from
// at, line is the number of lines before at, cs and blobs (where each blob
// line before at starts, by hash) are what the codec knew there. src is
// the whole journal, to read blobs back from. The reader takes blobs as
// it is.
func ResumeReader(r io.Reader, at int64, line int, cs CodecState, blobs map[BlobKey]int64, src io.ReaderAt) *Reader {
	jr := NewReader(r, true, src)
	c := jr.codec
	c.lastMsgs, c.lastLeftOff, c.inlineLeftOff = slices.Clone(cs.LastMsgs), slices.Clone(cs.LastLeftOff), cs.InlineLeftOff
	if blobs != nil {
		c.rawAt = blobs
	}
	jr.at, jr.start, jr.line, jr.nl = at, at, line, line
	return jr
}

// Lines is how many whole lines (each ending with a newline) come before
// At.
func (jr *Reader) Lines() int { return jr.nl }

// IndexState is what a CallIndex holds of a journal up to an offset (see
// CallIndex.Seed).
type IndexState struct {
	Calls  []CallPos
	Blobs  map[BlobKey]int64
	Frames [][]BlobKey
	Last   []BlobKey
}

// Export indexes the journal at path up to offset end, which must be
// where a line starts, and returns a copy of what the index holds. It
// fails when the index already reaches past end (it cannot be cut back).
func (ix *CallIndex) Export(path string, end int64) (IndexState, error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.path != path {
		ix.path, ix.size, ix.calls, ix.blobs, ix.frames, ix.last = path, 0, nil, map[BlobKey]int64{}, nil, nil
	}
	if ix.blobs == nil {
		ix.blobs = map[BlobKey]int64{}
	}
	if ix.size > end {
		return IndexState{}, fmt.Errorf("the call index reaches offset %d, past %d", ix.size, end)
	}
	if ix.size < end {
		f, err := OpenRegular(path)
		if err != nil {
			return IndexState{}, fmt.Errorf("read journal: %w", err)
		}
		defer f.Close()
		lr := NewLineReader(io.NewSectionReader(f, ix.size, end-ix.size), 0)
		for ix.size < end {
			line, err := lr.View()
			if len(line) == 0 && err != nil {
				return IndexState{}, fmt.Errorf("index journal up to %d: at %d: %w", end, ix.size, err)
			}
			var tooLong *LineTooLongError
			if errors.As(err, &tooLong) {
				return IndexState{}, fmt.Errorf("index journal: %w", err)
			}
			at := ix.size
			ix.size += int64(len(line))
			ix.note(at, bytes.TrimSpace(line))
		}
	}
	return IndexState{Calls: slices.Clone(ix.calls), Blobs: maps.Clone(ix.blobs), Frames: slices.Clone(ix.frames), Last: slices.Clone(ix.last)}, nil
}
