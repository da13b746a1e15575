// Package journal is a session's journal as lines on disk: the codec that
// turns events into JSON lines and back (shared request bodies and skill
// texts as blob lines, left-off lists as deltas, long replies compressed),
// the appending writer, the streaming reader and the bounded line reader
// they share, and the call index that reads one model call back by its
// offset. It knows events, not sessions: folding them is the rule book's,
// reopening a session the shell's.
package journal
