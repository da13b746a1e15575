package llm

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// sseEvent is one dispatched server-sent event.
type sseEvent struct {
	// data is the event's data lines joined by "\n"; valid until the next
	// call of next.
	data []byte
	// isError is set for an "event: error" frame or an "error:" field, whose
	// payload is then in data.
	isError bool
	// cut is set when the stream ended before the event's blank line, so
	// its data may be a fragment.
	cut bool
}

// sseReader reads server-sent events as chat-completions servers send them.
// It follows the SSE format (comments, multi-line data, blank-line dispatch)
// and forgives two common deviations: data lines with no blank line between
// them, and bare JSON lines without a "data:" prefix.
type sseReader struct {
	br      *bufio.Reader
	data    []byte // pending data lines
	hasData bool
	oneLine bool   // the pending data is one line, not yet checked as JSON
	errData []byte // pending "error:" field
	hasErr  bool
	event   string // pending event type
	out     []byte // the last dispatched event's data
	long    []byte // a line longer than br's buffer
	eof     bool
	// max bounds a line and an event's pending data, so that a server that
	// never ends a line cannot fill memory.
	max int
	// progress, when set, is called whenever part of a line that is not a
	// comment arrives: the stream is getting somewhere. Keep-alive comments
	// and blank lines are not progress.
	progress func()
}

// maxEvent is how long a line or an event may be by default: no longer
// than a whole reply may be.
const maxEvent = maxBody

// errEventTooLong ends a stream whose line or event outgrows sseReader.max.
var errEventTooLong = errors.New("longer than a reply may be")

func newSSEReader(r io.Reader) *sseReader {
	return &sseReader{br: bufio.NewReaderSize(r, 4<<10), max: maxEvent}
}

// next returns the next event, or io.EOF after the last one.
func (s *sseReader) next() (sseEvent, error) {
	for !s.eof {
		line, err := s.readLine()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				return sseEvent{}, err
			}
			s.eof = true
		}
		if len(line) == 0 {
			if ev, ok := s.dispatch(); ok {
				return ev, nil
			}
			continue
		}
		if line[0] == ':' { // comment, such as a keep-alive
			continue
		}
		field, value := line, []byte(nil)
		if line[0] == '{' || line[0] == '[' {
			field, value = []byte("data"), line
		} else if i := bytes.IndexByte(line, ':'); i >= 0 {
			field, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		switch string(field) {
		case "data":
			// A data line after a complete JSON payload, with no blank line
			// between them, starts a new event. Only a one-line payload is
			// checked, and only once: checking the growing data of a long
			// multi-line event at every line would be quadratic.
			if s.hasData && s.oneLine && s.event != "error" && json.Valid(s.data) {
				ev, _ := s.dispatch()
				s.data = append(s.data[:0], value...)
				s.hasData, s.oneLine = true, true
				return ev, nil
			}
			if len(s.data)+len(value) >= s.max {
				return sseEvent{}, s.tooLong("an event's data")
			}
			s.oneLine = !s.hasData
			if s.hasData {
				s.data = append(s.data, '\n')
			}
			s.data = append(s.data, value...)
			s.hasData = true
		case "event":
			s.event = string(value)
		case "error":
			if s.hasErr {
				s.errData = append(s.errData, '\n')
			}
			if len(s.errData)+len(value) >= s.max {
				return sseEvent{}, s.tooLong("an error event")
			}
			s.errData = append(s.errData, value...)
			s.hasErr = true
		}
	}
	if ev, ok := s.dispatch(); ok {
		ev.cut = true
		return ev, nil
	}
	return sseEvent{}, io.EOF
}

// dispatch hands out the pending event, if there is one, and clears it.
func (s *sseReader) dispatch() (sseEvent, bool) {
	defer func() {
		s.data, s.hasData = s.data[:0], false
		s.errData, s.hasErr = s.errData[:0], false
		s.event = ""
	}()
	switch {
	case s.hasErr:
		s.out = append(s.out[:0], s.errData...)
		return sseEvent{data: s.out, isError: true}, true
	case s.hasData:
		s.out = append(s.out[:0], s.data...)
		return sseEvent{data: s.out, isError: s.event == "error"}, true
	case s.event == "error":
		return sseEvent{isError: true}, true
	}
	return sseEvent{}, false
}

// readLine returns the next line without its line ending; it may return a
// last line together with io.EOF.
func (s *sseReader) readLine() ([]byte, error) {
	line, err := s.br.ReadSlice('\n')
	s.noteProgress(line)
	if errors.Is(err, bufio.ErrBufferFull) {
		s.long = append(s.long[:0], line...)
		for errors.Is(err, bufio.ErrBufferFull) {
			if len(s.long) >= s.max {
				return nil, s.tooLong("a line")
			}
			line, err = s.br.ReadSlice('\n')
			s.noteProgress(s.long)
			s.long = append(s.long, line...)
		}
		line = s.long
	}
	line = bytes.TrimSuffix(line, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	return line, err
}

func (s *sseReader) tooLong(what string) error {
	return fmt.Errorf("%s passed %d MiB, %w; the rest was not read", what, s.max>>20, errEventTooLong)
}

// noteProgress reports a line (or the start of one) that is more than a
// comment or a line ending.
func (s *sseReader) noteProgress(start []byte) {
	if s.progress == nil || len(start) == 0 || start[0] == ':' || start[0] == '\n' || start[0] == '\r' {
		return
	}
	s.progress()
}
