package paged

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"
	"weak"
)

type item struct {
	N    int
	Text string
	Tags []string
	Ext  map[string][]byte
}

func mk(i int) item {
	it := item{N: i, Text: fmt.Sprintf("item %d: %s", i, string(rune('a'+i%26)))}
	if i%3 == 0 {
		it.Tags = []string{"x", fmt.Sprint(i)}
	}
	if i%7 == 0 {
		it.Ext = map[string][]byte{"k": []byte(fmt.Sprint(i))}
	}
	return it
}

func equal(a, b item) bool {
	if a.N != b.N || a.Text != b.Text || !slices.Equal(a.Tags, b.Tags) || len(a.Ext) != len(b.Ext) {
		return false
	}
	for k, v := range a.Ext {
		if string(b.Ext[k]) != string(v) {
			return false
		}
	}
	return true
}

// check compares every way of reading l with want.
func check(t *testing.T, l List[item], want []item) {
	t.Helper()
	if l.Len() != len(want) {
		t.Fatalf("Len = %d, want %d", l.Len(), len(want))
	}
	for i, w := range want {
		if got := l.At(i); !equal(got, w) {
			t.Fatalf("At(%d) = %+v, want %+v", i, got, w)
		}
	}
	n := 0
	for i, v := range l.All() {
		if i != n || !equal(v, want[i]) {
			t.Fatalf("All yields %d: %+v at step %d, want %+v", i, v, n, want[n])
		}
		n++
	}
	if n != len(want) {
		t.Fatalf("All yielded %d items, want %d", n, len(want))
	}
	r := rand.New(rand.NewPCG(uint64(len(want)), 1))
	for range 50 {
		from := r.IntN(len(want) + 1)
		to := from + r.IntN(len(want)-from+1)
		got := l.Slice(from, to)
		if len(got) != to-from {
			t.Fatalf("Slice(%d, %d) has %d items", from, to, len(got))
		}
		for k, v := range got {
			if !equal(v, want[from+k]) {
				t.Fatalf("Slice(%d, %d)[%d] = %+v, want %+v", from, to, k, v, want[from+k])
			}
		}
		k := from
		for i, v := range l.Range(from, to) {
			if i != k || !equal(v, want[i]) {
				t.Fatalf("Range(%d, %d) yields %d at %d", from, to, i, k)
			}
			k++
		}
		if k != to {
			t.Fatalf("Range(%d, %d) stopped at %d", from, to, k)
		}
	}
}

func TestSealedItemsReadBackAsTheyWere(t *testing.T) {
	var l List[item]
	var want []item
	for i := range 5*PageSize + 17 {
		l.Append(mk(i))
		want = append(want, mk(i))
		if i%100 == 99 {
			l.Seal(l.Len())
		}
	}
	if l.Sealed() == 0 {
		t.Fatal("nothing was sealed")
	}
	if got := l.Len() - l.Sealed(); got < PageSize {
		t.Fatalf("%d items left unsealed, want at least %d", got, PageSize)
	}
	check(t, l, want)
	runtime.GC() // the decoded pages go; reading decodes them again
	check(t, l, want)
}

func TestSealStopsAtTheBoundGiven(t *testing.T) {
	var l List[item]
	for i := range 6 * PageSize {
		l.Append(mk(i))
	}
	l.Seal(2*PageSize - 1)
	if l.Sealed() != PageSize {
		t.Fatalf("sealed %d, want one page (%d): the second page reaches past the bound", l.Sealed(), PageSize)
	}
	l.Seal(0)
	if l.Sealed() != PageSize {
		t.Fatalf("a lower bound unsealed or sealed more: %d", l.Sealed())
	}
}

func TestAViewHoldsStillWhileTheListGrowsAndSeals(t *testing.T) {
	var l List[item]
	for i := range 2 * PageSize {
		l.Append(mk(i))
	}
	v := l.View()
	var want []item
	for i := range 2 * PageSize {
		want = append(want, mk(i))
	}
	for i := 2 * PageSize; i < 4*PageSize; i++ {
		l.Append(mk(i))
	}
	l.Seal(l.Len())
	l.Set(l.Len()-1, item{N: -1})
	check(t, v, want)
	s := v.Slice(v.Len()-3, v.Len())
	s = append(s, item{N: -2}) // must copy, not write into the list
	if l.At(v.Len()).N != v.Len() {
		t.Fatalf("appending to a slice of a view wrote into the list: %+v", l.At(v.Len()))
	}
	_ = s
}

func TestSetRefusesASealedItem(t *testing.T) {
	var l List[item]
	for i := range 3 * PageSize {
		l.Append(mk(i))
	}
	l.Seal(l.Len())
	defer func() {
		if recover() == nil {
			t.Fatal("Set on a sealed item did not refuse")
		}
	}()
	l.Set(0, item{})
}

func TestReadersOnManyGoroutines(t *testing.T) {
	var l List[item]
	var want []item
	for i := range 8 * PageSize {
		l.Append(mk(i))
		want = append(want, mk(i))
	}
	l.Seal(l.Len())
	v := l.View()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 2000 {
				i := (k*131 + g*977) % len(want)
				if !equal(v.At(i), want[i]) {
					t.Errorf("At(%d) read wrong", i)
					return
				}
				if k%500 == 0 {
					runtime.GC()
				}
			}
		}()
	}
	for i := len(want); i < len(want)+3*PageSize; i++ {
		l.Append(mk(i))
		l.Seal(l.Len())
	}
	wg.Wait()
}

// A sealed page costs a fraction of the items it holds.
func TestSealingSavesMemory(t *testing.T) {
	var l List[item]
	for i := range 8 * PageSize {
		l.Append(mk(i))
	}
	l.Seal(l.Len())
	l.settle()
	bytes := 0
	for _, p := range l.pages {
		bytes += len(p.data)
	}
	held := len(l.pages) * PageSize * 40 // the struct alone, without its strings
	if bytes >= held {
		t.Fatalf("sealed pages take %d bytes for %d items, no less than their structs (%d)", bytes, len(l.pages)*PageSize, held)
	}
}

func BenchmarkSealPage(b *testing.B) {
	items := make([]item, PageSize)
	for i := range items {
		items[i] = mk(i)
	}
	for b.Loop() {
		if _, err := seal(items); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadSealedPage(b *testing.B) {
	items := make([]item, PageSize)
	for i := range items {
		items[i] = mk(i)
	}
	p, err := seal(items)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		p.dec = weak.Pointer[[]item]{}
		_ = p.read()
	}
}

// TestExportRestore stores a list as its pages' bytes and unsealed items
// and reads it back: the same items, pages read only when asked for, and
// a list Seal could not have made refused.
func TestExportRestore(t *testing.T) {
	var l List[string]
	for i := range 5*PageSize + 17 {
		l.Append(fmt.Sprintf("item %d", i))
	}
	l.Seal(l.Len())
	pages, hot, err := l.Export()
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) != l.Sealed()/PageSize || len(pages) == 0 || len(hot) != l.Len()-l.Sealed() {
		t.Fatalf("%d pages and %d items for a list of %d with %d sealed", len(pages), len(hot), l.Len(), l.Sealed())
	}
	r, err := Restore(pages, hot)
	if err != nil {
		t.Fatal(err)
	}
	if r.Len() != l.Len() || r.Sealed() != l.Sealed() {
		t.Fatalf("restored %d items, %d sealed; want %d, %d", r.Len(), r.Sealed(), l.Len(), l.Sealed())
	}
	for i, v := range l.All() {
		if got := r.At(i); got != v {
			t.Fatalf("item %d: %q, want %q", i, got, v)
		}
	}
	r.Append("more")
	if r.At(r.Len()-1) != "more" || l.Len() != r.Len()-1 {
		t.Fatal("appending to the restored list")
	}
	if _, err := Restore(pages, hot[:PageSize-1]); err == nil {
		t.Error("a list with pages and fewer than PageSize items after them was restored")
	}
	if _, err := Restore([][]byte{nil}, hot); err == nil {
		t.Error("an empty page was restored")
	}
}
