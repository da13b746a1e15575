// Package paged holds a long append-only list whose older items are kept
// compressed. A session keeps every transcript entry and chat message for
// its whole life, but once they leave the model's window they are read
// only when someone scrolls back, exports or asks why: held as Go values
// they cost a few hundred bytes each on top of their text, and memory grew
// with every turn. Sealed into pages, gob-encoded and deflated, they cost a
// fraction of their text, and a page is decoded again when one of its
// items is asked for.
package paged

import (
	"bytes"
	"compress/flate"
	"encoding/gob"
	"fmt"
	"io"
	"iter"
	"slices"
	"sync"
	"weak"
)

// PageSize is how many items a sealed page holds. Sealing also leaves at
// least this many items unsealed, so the recent ones are always at hand.
const PageSize = 256

// List is an append-only list of T. A List value is a view: appending to
// or sealing the list a view was taken from never changes what the view
// holds, so views may be read from other goroutines while the list grows.
type List[T any] struct {
	// pages hold the items [i*PageSize, (i+1)*PageSize); a page never
	// changes once made.
	pages []*page[T]
	// hot holds the items from len(pages)*PageSize on, as values.
	hot []T
}

// page is PageSize items, encoded and compressed. A page is made holding
// its items and is encoded by the sealer in the background (see Seal):
// until then it reads them in place.
type page[T any] struct {
	// mu guards every field: data once encoded, items until then, and
	// dec, the decoded items while something still holds them.
	mu    sync.Mutex
	data  []byte
	items []T
	dec   weak.Pointer[[]T]
	// once encodes the page once, whoever asks first (the sealer, or Seal
	// when the sealer lags); a second asker waits for the first.
	once sync.Once
}

// Of returns a list of items, none sealed. It keeps items, which the
// caller must not change afterwards.
func Of[T any](items []T) List[T] { return List[T]{hot: items} }

// Len is the number of items.
func (l List[T]) Len() int { return l.base() + len(l.hot) }

func (l List[T]) base() int { return len(l.pages) * PageSize }

// At returns item i, which must be in range.
func (l List[T]) At(i int) T {
	if b := l.base(); i >= b {
		return l.hot[i-b]
	}
	return (*l.pages[i/PageSize].read())[i%PageSize]
}

// Append adds v at the end.
func (l *List[T]) Append(v T) { l.hot = append(l.hot, v) }

// Set replaces item i, which must not be sealed: only the latest items are
// ever corrected (a user message's notes, before the turn's first call).
func (l *List[T]) Set(i int, v T) {
	b := l.base()
	if i < b {
		panic(fmt.Sprintf("paged: item %d is sealed (the first %d are)", i, b))
	}
	l.hot[i-b] = v
}

// View returns the list as it is now; later appends do not show in it.
func (l List[T]) View() List[T] {
	return List[T]{pages: l.pages[:len(l.pages):len(l.pages)], hot: l.hot[:len(l.hot):len(l.hot)]}
}

// Slice returns items [from, to). Unsealed items are returned in place,
// capped so that appending to the result copies; a range reaching into a
// sealed page is copied out.
func (l List[T]) Slice(from, to int) []T {
	if b := l.base(); from >= b {
		return l.hot[from-b : to-b : to-b]
	}
	out := make([]T, 0, to-from)
	for _, v := range l.Range(from, to) {
		out = append(out, v)
	}
	return out
}

// Items returns every item in a new slice.
func (l List[T]) Items() []T { return l.Slice(0, l.Len()) }

// All yields every item with its index, decoding each sealed page once.
func (l List[T]) All() iter.Seq2[int, T] { return l.Range(0, l.Len()) }

// Range yields items [from, to) with their indexes.
func (l List[T]) Range(from, to int) iter.Seq2[int, T] {
	return func(yield func(int, T) bool) {
		i := max(from, 0)
		for i < to && i < l.base() {
			items := l.pages[i/PageSize].read() // held while its items are yielded
			for end := min(to, (i/PageSize+1)*PageSize); i < end; i++ {
				if !yield(i, (*items)[i%PageSize]) {
					return
				}
			}
		}
		for b := l.base(); i < to && i < l.Len(); i++ {
			if !yield(i, l.hot[i-b]) {
				return
			}
		}
	}
}

// Seal compresses whole pages of the items before n, leaving at least
// PageSize items unsealed. Sealing changes how items are held, never what
// they are. The pages are encoded by a sealer in the background, so a
// fold that seals as it goes (reopening a long session) does not wait on
// them; when the sealer lags by sealQueue pages, Seal encodes the page
// itself, so what waits unencoded stays bounded. An item that cannot be
// encoded stays held as it was rather than lost.
func (l *List[T]) Seal(n int) {
	for l.base()+PageSize <= n && len(l.hot) >= 2*PageSize {
		p := &page[T]{items: l.hot[:PageSize:PageSize]}
		l.pages = append(l.pages, p)
		// a new array: views may still hold the old one, and the sealed
		// items must not stay behind in it once encoded
		rest := make([]T, len(l.hot)-PageSize, len(l.hot))
		copy(rest, l.hot[PageSize:])
		l.hot = rest
		select {
		case sealer <- p.encode:
		default:
			p.encode()
		}
	}
}

// sealQueue is how many pages may wait for the sealer.
const sealQueue = 8

// sealer hands pages to the one goroutine that encodes them, for the
// life of the program.
var sealer = make(chan func(), sealQueue)

func init() {
	go func() {
		for encode := range sealer {
			encode()
		}
	}()
}

// encode compresses the page's items, unless it is done already.
func (p *page[T]) encode() { p.once.Do(p.compress) }

func (p *page[T]) compress() {
	p.mu.Lock()
	items := p.items
	p.mu.Unlock()
	if items == nil {
		return
	}
	// encoded without the lock: readers go on reading the items, which
	// never change
	sealed, err := seal(items)
	if err != nil {
		return
	}
	p.mu.Lock()
	p.data, p.items = sealed.data, nil
	p.mu.Unlock()
}

// settle encodes every page still waiting for the sealer, for tests that
// look at the encoded pages.
func (l List[T]) settle() {
	for _, p := range l.pages {
		p.encode()
	}
}

// Sealed is how many items are held in sealed pages.
func (l List[T]) Sealed() int { return l.base() }

var (
	writers = sync.Pool{New: func() any {
		w, _ := flate.NewWriter(io.Discard, flate.BestSpeed)
		return w
	}}
	readers = sync.Pool{New: func() any { return flate.NewReader(bytes.NewReader(nil)) }}
)

// chunk is how many items one gob message of a page holds. An encoder
// reuses its buffer from one message to the next, while a page encoded as
// one value grew a buffer of the whole page from nothing, by doubling,
// for every page (two fifths of what reopening a long session
// allocated); a message per item would cost its decoding a third more.
const chunk = 32

func seal[T any](items []T) (*page[T], error) {
	var buf bytes.Buffer
	w := writers.Get().(*flate.Writer)
	defer writers.Put(w)
	w.Reset(&buf)
	enc := gob.NewEncoder(w)
	for i := 0; i < len(items); i += chunk {
		if err := enc.Encode(items[i:min(i+chunk, len(items))]); err != nil {
			return nil, fmt.Errorf("seal page: %w", err)
		}
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("seal page: %w", err)
	}
	return &page[T]{data: bytes.Clone(buf.Bytes())}, nil
}

// read returns the page's items: those it holds until encoded, else
// decoded unless a reader still holds the pointer an earlier call
// returned. The bytes are the page's own, made by seal: failing to read
// them back means memory is corrupt, not that input was bad.
func (p *page[T]) read() *[]T {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.items != nil {
		v := p.items
		return &v
	}
	if v := p.dec.Value(); v != nil {
		return v
	}
	r := readers.Get().(io.ReadCloser)
	defer readers.Put(r)
	if err := r.(flate.Resetter).Reset(bytes.NewReader(p.data), nil); err != nil {
		panic(fmt.Sprintf("paged: read sealed page: %v", err))
	}
	items := make([]T, 0, PageSize)
	dec := gob.NewDecoder(r)
	for {
		var part []T
		if err := dec.Decode(&part); err == io.EOF {
			break
		} else if err != nil {
			panic(fmt.Sprintf("paged: read sealed page: item %d: %v", len(items), err))
		}
		items = append(items, part...)
	}
	v := &items
	p.dec = weak.Make(v)
	return v
}

// Export returns the list as it is held: the bytes of each sealed page
// (encoding any the sealer has not reached yet) and the unsealed items,
// for storing the list without decoding its pages. It fails when a page
// could not be encoded and still holds its items as values.
func (l List[T]) Export() (pages [][]byte, hot []T, err error) {
	pages = make([][]byte, len(l.pages))
	for i, p := range l.pages {
		p.encode()
		p.mu.Lock()
		pages[i] = p.data
		p.mu.Unlock()
		if pages[i] == nil {
			return nil, nil, fmt.Errorf("page %d of the list could not be encoded", i)
		}
	}
	return pages, slices.Clip(l.hot), nil
}

// Restore is a list Export returned: each page's bytes, as Export gave
// them, and the unsealed items, which the list keeps. The pages' bytes are
// read when one of their items is first asked for, so they must be bytes
// Export gave (checked, by whoever stored them, for damage): bytes that
// do not decode are memory gone bad, as for any sealed page. A list of
// fewer than PageSize unsealed items after its pages is refused, as Seal
// would not have made it.
func Restore[T any](pages [][]byte, hot []T) (List[T], error) {
	if len(pages) > 0 && len(hot) < PageSize {
		return List[T]{}, fmt.Errorf("restore list: %d sealed pages but only %d items after them (Seal leaves at least %d)", len(pages), len(hot), PageSize)
	}
	l := List[T]{hot: hot}
	for i, data := range pages {
		if len(data) == 0 {
			return List[T]{}, fmt.Errorf("restore list: page %d is empty", i)
		}
		p := &page[T]{data: data}
		p.once.Do(func() {}) // encoded already
		l.pages = append(l.pages, p)
	}
	return l, nil
}
