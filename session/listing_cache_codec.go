package session

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"
	"unsafe"

	"github.com/go-json-experiment/json/jsontext"
)

// The listing cache's body is its entries one after the other, each the
// fields of a fileEntry in a fixed order: strings and byte strings as a
// uvarint length and the bytes, integers as (u)varints, times as
// time.Time's binary form behind its length, and one byte of flags. It is
// hand-written rather than gob or JSON because a restart decodes 10,000
// of them before it can show the first page: the decoder takes every
// string as a slice of one copy of the body (no allocation per field), and
// an entry costs about a microsecond.
//
//	id  dev ino size mtime_ns  title model cwd  created updated  flags
//	messages threads  parent parent_title  usage_count
//	usage × usage_count: model input output cache_read cache_creation
//	                     cache_creation_5m cache_creation_1h unknown
//	name  tag_count  tag × tag_count
//
// flags: 1 archived, 2 failed, 4 a sub-agent's session, 8 its goal is
// blocked, 16 pinned. A damaged summary is never written.

// minEntrySize is less than any entry's encoding, to bound the count a
// header may claim.
const minEntrySize = 40

const (
	flagArchived = 1 << iota
	flagFailed
	flagSubagent
	flagGoalBlocked
	flagPinned
)

// cacheFlags is the flags byte of s's entry.
func cacheFlags(s *Summary) byte {
	var flags byte
	for _, f := range [...]struct {
		on  bool
		bit byte
	}{
		{s.Archived, flagArchived}, {s.Failed, flagFailed}, {s.Subagent, flagSubagent},
		{s.GoalBlocked, flagGoalBlocked}, {s.Pinned, flagPinned},
	} {
		if f.on {
			flags |= f.bit
		}
	}
	return flags
}

// appendCacheEntry appends e's encoding to b: a cached entry's own bytes,
// as they were read.
func appendCacheEntry(b []byte, e *fileEntry) []byte {
	if e.full == nil {
		return append(b, e.raw...)
	}
	s := e.full
	b = appendString(b, s.ID)
	b = binary.AppendUvarint(b, e.st.dev)
	b = binary.AppendUvarint(b, e.st.ino)
	b = binary.AppendVarint(b, e.st.size)
	b = binary.AppendVarint(b, e.st.mtime)
	b = appendString(b, s.Title)
	b = appendString(b, s.Model)
	b = appendString(b, s.Cwd)
	b = appendCacheTime(b, s.CreatedAt)
	b = appendCacheTime(b, s.UpdatedAt)
	b = append(b, cacheFlags(s))
	b = binary.AppendVarint(b, int64(s.Messages))
	b = binary.AppendVarint(b, int64(s.Threads))
	b = appendString(b, s.Parent)
	b = appendString(b, s.ParentTitle)
	b = binary.AppendUvarint(b, uint64(len(s.Usage)))
	for _, u := range s.Usage {
		b = appendString(b, u.Model)
		for _, n := range [...]int64{u.Usage.InputTokens, u.Usage.OutputTokens, u.Usage.CacheReadInputTokens,
			u.Usage.CacheCreationInputTokens, u.Usage.CacheCreation5mInputTokens, u.Usage.CacheCreation1hInputTokens} {
			b = binary.AppendVarint(b, n)
		}
		b = appendString(b, string(u.Usage.Unknown))
	}
	b = appendString(b, s.Name)
	b = binary.AppendUvarint(b, uint64(len(s.Tags)))
	for _, t := range s.Tags {
		b = appendString(b, t)
	}
	return b
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

func appendCacheTime(b []byte, t time.Time) []byte {
	// A time MarshalBinary refuses (an offset that is not whole minutes)
	// never comes from a decoded document; its zero time keeps the entry
	// decodable, and its stamp then still guards it.
	enc, err := t.MarshalBinary()
	if err != nil {
		enc, _ = time.Time{}.MarshalBinary()
	}
	return appendString(b, string(enc))
}

// errCacheEntry is a body that does not decode.
var errCacheEntry = errors.New("bad entry")

// cacheReader decodes a body, or one entry of it; the first error
// sticks, and every read after it returns zeros.
type cacheReader struct {
	b   []byte
	s   string // b as one string: every string decoded is a slice of it
	off int
	err error
	// usages is the slab each entry's Usage is cut from; exact: no slab,
	// each Usage its own (one summary decoded).
	usages []ModelUsage
	exact  bool
}

// newCacheReader reads s, which is never written: b is s's bytes.
func newCacheReader(s string) cacheReader {
	var r cacheReader
	r.reset(s)
	return r
}

// reset makes r read s from its start, keeping its Usage slab.
func (r *cacheReader) reset(s string) {
	r.b, r.s, r.off, r.err = unsafe.Slice(unsafe.StringData(s), len(s)), s, 0, nil
}

// summaryOf sets *sum to e's summary: its own, or decoded from its bytes
// in the cache's body (checked when the body was read, so it decodes),
// its Usage cut from r's slab.
func (r *cacheReader) summaryOf(e *fileEntry, sum *Summary) {
	if e.full != nil {
		*sum = *e.full
		return
	}
	r.reset(e.raw)
	sum.ID, _ = r.head()
	r.summary(sum)
}

func (r *cacheReader) fail() {
	if r.err == nil {
		r.err = errCacheEntry
	}
	r.off = len(r.b)
}

func (r *cacheReader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b[r.off:])
	if n <= 0 {
		r.fail()
		return 0
	}
	r.off += n
	return v
}

func (r *cacheReader) varint() int64 {
	v, n := binary.Varint(r.b[r.off:])
	if n <= 0 {
		r.fail()
		return 0
	}
	r.off += n
	return v
}

func (r *cacheReader) int() int {
	v := r.varint()
	if v < 0 || v > 1<<31 {
		r.fail()
		return 0
	}
	return int(v)
}

// span returns where the next length-prefixed field lies in r.b.
func (r *cacheReader) span() (from, to int) {
	n := r.uvarint()
	if n > uint64(len(r.b)-r.off) {
		r.fail()
		return r.off, r.off
	}
	from = r.off
	r.off += int(n)
	return from, r.off
}

func (r *cacheReader) string() string {
	from, to := r.span()
	return r.s[from:to]
}

func (r *cacheReader) time() time.Time {
	from, to := r.span()
	var t time.Time
	if err := t.UnmarshalBinary(r.b[from:to]); err != nil {
		r.fail()
	}
	return t
}

func (r *cacheReader) byte() byte {
	if r.off >= len(r.b) {
		r.fail()
		return 0
	}
	c := r.b[r.off]
	r.off++
	return c
}

// head decodes the next entry's ID and stamp; r.err says whether it
// could.
func (r *cacheReader) head() (id string, st stamp) {
	id = r.string()
	st = stamp{dev: r.uvarint(), ino: r.uvarint(), size: r.varint(), mtime: r.varint(), ok: true}
	return id, st
}

// summary decodes the rest of the entry, after its head, into s (all
// but its ID); r.err says whether it could.
func (r *cacheReader) summary(s *Summary) {
	s.Title, s.Model, s.Cwd = r.string(), r.string(), r.string()
	s.CreatedAt, s.UpdatedAt = r.time(), r.time()
	flags := r.byte()
	if flags&^(flagArchived|flagFailed|flagSubagent|flagGoalBlocked|flagPinned) != 0 {
		r.fail()
	}
	s.Archived, s.Failed = flags&flagArchived != 0, flags&flagFailed != 0
	s.Subagent, s.GoalBlocked = flags&flagSubagent != 0, flags&flagGoalBlocked != 0
	s.Pinned = flags&flagPinned != 0
	s.Messages, s.Threads = r.int(), r.int()
	s.Parent, s.ParentTitle = r.string(), r.string()
	if n := r.uvarint(); n > 0 {
		if n > uint64(len(r.b)-r.off) {
			r.fail()
			return
		}
		s.Usage = r.usage(int(n))
		for i := range s.Usage {
			u := &s.Usage[i]
			u.Model = r.string()
			u.Usage.InputTokens, u.Usage.OutputTokens = r.varint(), r.varint()
			u.Usage.CacheReadInputTokens, u.Usage.CacheCreationInputTokens = r.varint(), r.varint()
			u.Usage.CacheCreation5mInputTokens, u.Usage.CacheCreation1hInputTokens = r.varint(), r.varint()
			if unknown := r.string(); unknown != "" {
				u.Usage.Unknown = jsontext.Value(unknown)
			}
		}
	}
	s.Name = r.string()
	if n := r.uvarint(); n > 0 {
		if n > TagsMax {
			r.fail()
			return
		}
		s.Tags = make([]string, n)
		for i := range s.Tags {
			s.Tags[i] = r.string()
		}
	}
}

// usage is n ModelUsage from r's slab, a new one when it has no room.
// Most sessions use one model: one slab holds them all, where a slice
// each was 10,000 allocations of a restart.
func (r *cacheReader) usage(n int) []ModelUsage {
	if r.exact {
		return make([]ModelUsage, n)
	}
	if n > cap(r.usages)-len(r.usages) {
		r.usages = make([]ModelUsage, 0, max(n, 1024))
	}
	from := len(r.usages)
	r.usages = r.usages[:from+n]
	return r.usages[from : from+n : from+n]
}

// decodeCacheBody reads a body that holds n entries, and nothing after
// them. An entry that does not decode, whose ID is not a valid session ID,
// or that repeats one, makes the whole body unusable. Each entry keeps
// its head and its bytes (fileEntry.raw), decoded again when read. order
// is the entries as the body holds them: newest first, as
// encodeListingCache writes them.
func decodeCacheBody(body []byte, n int) (map[string]*fileEntry, []*fileEntry, error) {
	// The strings are slices of body itself: it is read for this and
	// never written again, and a copy of 2 MB is page faults and a memmove
	// a start would wait for.
	all := unsafe.String(unsafe.SliceData(body), len(body))
	r := newCacheReader(all)
	files := make(map[string]*fileEntry, n)
	order := make([]*fileEntry, 0, n)
	// One allocation for every entry rather than one each: the entries
	// live and go together (a change replaces an entry, never edits it),
	// and 10,000 allocations were a measurable part of a restart.
	slab := make([]fileEntry, n)
	var sum Summary // each entry's, checked and dropped
	for i := range n {
		e := &slab[i]
		from := r.off
		e.id, e.st = r.head()
		sum = Summary{}
		r.usages = r.usages[:0]
		r.summary(&sum)
		if r.err != nil {
			return nil, nil, fmt.Errorf("entry %d: %w", i, r.err)
		}
		e.updated, e.parent, e.raw = sum.UpdatedAt, sum.Parent, all[from:r.off]
		e.flags = headFlags(&sum)
		if err := ValidateID(e.id); err != nil {
			return nil, nil, fmt.Errorf("entry %d: %w", i, err)
		}
		if _, dup := files[e.id]; dup {
			return nil, nil, fmt.Errorf("entry %d: session %s listed twice", i, e.id)
		}
		files[e.id] = e
		order = append(order, e)
	}
	if r.off != len(body) {
		return nil, nil, fmt.Errorf("%d bytes after the last entry", len(body)-r.off)
	}
	return files, order, nil
}
