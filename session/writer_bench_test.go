package session_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"myco/session"
)

// The saving benchmarks of issue 9: what one message costs on a session of
// 1, 10 and 50 MB, the journal's way (Append) against the old way (rewrite
// the whole document), and what the background fold after a turn costs.
// Figures and commands are in docs/PERFORMANCE.md, "Saving and turn
// overhead on a large session".

// saveSizes are the session sizes the issue asks about.
var saveSizes = []struct {
	name string
	size int
}{{"1MB", 1 << 20}, {"10MB", 10 << 20}, {"50MB", 50 << 20}}

// openSized writes a realistic document of about size bytes into a new
// store and opens its writer, as a live session holds it. The document is
// built by the caller, once per size, outside any timer.
func openSized(b *testing.B, doc *session.Document) (*session.Store, *session.Writer, string) {
	b.Helper()
	s, dir := openStore(b, session.Options{})
	if err := s.Save(doc); err != nil {
		b.Fatal(err)
	}
	w, err := s.OpenWriter(doc.ID, session.Owner{PID: os.Getpid()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { w.Close() })
	return s, w, dir
}

// answer is an ordinary saved message: an answer of about 1 KB of text,
// with the bookkeeping a real one carries.
func answer(i int) session.Message {
	return session.Message{
		ID: fmt.Sprintf("bench-%08d", i), Role: "assistant", At: t0.Add(time.Duration(i) * time.Second),
		Model: "anthropic/claude-sonnet-4-5", StopReason: "end_turn",
		Usage:   &session.Usage{InputTokens: 41000, OutputTokens: 240, CacheReadInputTokens: 40000},
		Content: []session.Block{{Type: session.BlockText, Text: strings.Repeat("The fold writes the journal into the document. ", 21)}},
	}
}

// benchDocs builds each size's document once; sub-benchmarks that run
// more than once (b.N = 1, then the asked count) reuse it.
func benchDocs(b *testing.B) func(size int) *session.Document {
	var mu sync.Mutex
	docs := map[int]*session.Document{}
	return func(size int) *session.Document {
		mu.Lock()
		defer mu.Unlock()
		if docs[size] == nil {
			docs[size] = docOfSize(b, size)
		}
		return docs[size]
	}
}

// BenchmarkAppend saves one ordinary message through the writer: one
// journal line, then an fsync of the journal (the message is durable
// before anyone is told of it). It should not grow with the session.
func BenchmarkAppend(b *testing.B) {
	docs := benchDocs(b)
	for _, sz := range saveSizes {
		b.Run(sz.name, func(b *testing.B) {
			_, w, _ := openSized(b, docs(sz.size))
			perOp(b, func(i int) {
				if err := w.Append(answer(i)); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// perOp runs op b.N times, timing each, and reports the median and the
// slowest besides the mean (ns/op): an fsync on a shared disk has a long
// tail, and the median is the figure that says whether a cost grows with
// the session.
func perOp(b *testing.B, op func(i int)) {
	b.Helper()
	took := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		start := time.Now()
		op(i)
		took = append(took, time.Since(start))
	}
	b.StopTimer()
	reportSpread(b, took)
}

// reportSpread reports the median and the largest of took, in ms.
func reportSpread(b *testing.B, took []time.Duration) {
	b.Helper()
	if len(took) == 0 {
		return
	}
	slices.Sort(took)
	ms := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }
	b.ReportMetric(ms(took[len(took)/2]), "p50-ms")
	b.ReportMetric(ms(took[len(took)-1]), "max-ms")
}

// BenchmarkAppendDelta is Append without its fsync: a streamed text delta
// (about 40 bytes) written to the journal and synced later by the
// writer's once-a-second loop. The difference from BenchmarkAppend is
// mostly the fsync.
func BenchmarkAppendDelta(b *testing.B) {
	docs := benchDocs(b)
	for _, sz := range saveSizes {
		b.Run(sz.name, func(b *testing.B) {
			_, w, _ := openSized(b, docs(sz.size))
			if err := w.StartPartial(session.Message{ID: "streaming", Role: "assistant", At: t0, Content: []session.Block{}}); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if err := w.Delta("streaming", "the fold writes the journal into the "); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkAppendSync is the fsync alone, of a journal with one fresh
// record in it (the record is written outside the timer).
func BenchmarkAppendSync(b *testing.B) {
	docs := benchDocs(b)
	for _, sz := range saveSizes {
		b.Run(sz.name, func(b *testing.B) {
			_, w, _ := openSized(b, docs(sz.size))
			if err := w.StartPartial(session.Message{ID: "streaming", Role: "assistant", At: t0, Content: []session.Block{}}); err != nil {
				b.Fatal(err)
			}
			took := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				if err := w.Delta("streaming", "the fold writes the journal into the "); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				start := time.Now()
				if err := w.Sync(); err != nil {
					b.Fatal(err)
				}
				took = append(took, time.Since(start))
			}
			b.StopTimer()
			reportSpread(b, took)
		})
	}
}

// BenchmarkSaveWhole is the old way, what every saved message cost before
// the journal: the whole document written again, atomically (temp file,
// fsync, rename, fsync of the folder). "replace" goes through the open
// writer (a live session's lock held); "store-save" through Store.Save,
// which takes the lock for the call.
func BenchmarkSaveWhole(b *testing.B) {
	docs := benchDocs(b)
	for _, sz := range saveSizes {
		b.Run(sz.name+"/replace", func(b *testing.B) {
			doc := docs(sz.size)
			_, w, _ := openSized(b, doc)
			setDocBytes(b, doc)
			for b.Loop() {
				if err := w.Replace(doc); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(sz.name+"/store-save", func(b *testing.B) {
			doc := docs(sz.size)
			s, _ := openStore(b, session.Options{})
			if err := s.Save(doc); err != nil {
				b.Fatal(err)
			}
			setDocBytes(b, doc)
			for b.Loop() {
				if err := s.Save(doc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// setDocBytes reports throughput in the document's encoded size.
func setDocBytes(b *testing.B, doc *session.Document) {
	b.Helper()
	data, err := session.Encode(doc)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
}

// BenchmarkFold is the background fold at the end of a turn: the journal
// holds one turn (the person's message, a streamed answer of 50 deltas,
// the answer), and Fold writes the whole document with it and empties the
// journal. The turn is written outside the timer. The session grows by a
// turn per iteration, which is nothing beside its size.
func BenchmarkFold(b *testing.B) {
	docs := benchDocs(b)
	for _, sz := range saveSizes {
		b.Run(sz.name, func(b *testing.B) {
			doc := docs(sz.size)
			_, w, dir := openSized(b, doc)
			setDocBytes(b, doc)
			took := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := range b.N {
				b.StopTimer()
				writeTurn(b, w, i)
				b.StartTimer()
				start := time.Now()
				if err := w.Fold(); err != nil {
					b.Fatal(err)
				}
				took = append(took, time.Since(start))
			}
			b.StopTimer()
			reportSpread(b, took)
			if info, err := os.Stat(filepath.Join(dir, doc.ID+".journal")); err != nil || info.Size() != 0 {
				b.Fatalf("journal after the last fold: %v, %v; want it empty", info, err)
			}
		})
	}
}

// writeTurn records one turn through w as a live session does.
func writeTurn(b *testing.B, w *session.Writer, i int) {
	b.Helper()
	q := textMessage(fmt.Sprintf("q-%08d", i), "user", "Please run the tests again and tell me what failed.")
	q.Human = true
	if err := w.Append(q); err != nil {
		b.Fatal(err)
	}
	a := answer(i)
	if err := w.StartPartial(session.Message{ID: a.ID, Role: "assistant", At: a.At, Content: []session.Block{}}); err != nil {
		b.Fatal(err)
	}
	for range 50 {
		if err := w.Delta(a.ID, "the fold writes the journal into the "); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Append(a); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkAppendDuringFold is Append while a fold of the same session
// runs in the background, as when the person's next message arrives
// before the previous turn's fold has finished: the writer's mutex is not
// held while the fold encodes and syncs, but the disk is shared.
func BenchmarkAppendDuringFold(b *testing.B) {
	docs := benchDocs(b)
	for _, sz := range saveSizes {
		b.Run(sz.name, func(b *testing.B) {
			_, w, _ := openSized(b, docs(sz.size))
			stop, done := make(chan struct{}), make(chan struct{})
			folds := 0
			go func() {
				defer close(done)
				for {
					select {
					case <-stop:
						return
					default:
					}
					if err := w.Append(answer(-1 - folds)); err != nil {
						b.Error(err)
						return
					}
					if err := w.Fold(); err != nil {
						b.Error(err)
						return
					}
					folds++
				}
			}()
			perOp(b, func(i int) {
				if err := w.Append(answer(i)); err != nil {
					b.Fatal(err)
				}
			})
			close(stop)
			<-done
			b.ReportMetric(float64(folds), "folds")
		})
	}
}

// BenchmarkAppendDeltaDuringSync saves a message (with its fsync) while
// text deltas stream into the same session, as when a tool's result is
// saved while... no: as when any durable change meets a streaming answer.
// Each iteration is one Append; meanwhile the benchmark writes deltas
// without pause and times each. A delta must never wait for an fsync
// (issue 9), so delta-max-ms stays far below the save's own time.
func BenchmarkAppendDeltaDuringSync(b *testing.B) {
	docs := benchDocs(b)
	for _, sz := range saveSizes {
		b.Run(sz.name, func(b *testing.B) {
			_, w, _ := openSized(b, docs(sz.size))
			if err := w.StartPartial(session.Message{ID: "streaming", Role: "assistant", At: t0, Content: []session.Block{}}); err != nil {
				b.Fatal(err)
			}
			var deltas []time.Duration
			i := 0
			for b.Loop() {
				i++
				saved := make(chan error, 1)
				go func() { saved <- w.Append(answer(i)) }()
				for waiting := true; waiting; {
					select {
					case err := <-saved:
						if err != nil {
							b.Fatal(err)
						}
						waiting = false
					default:
						start := time.Now()
						if err := w.Delta("streaming", "the fold writes the journal into the "); err != nil {
							b.Fatal(err)
						}
						deltas = append(deltas, time.Since(start))
					}
				}
			}
			b.StopTimer()
			slices.Sort(deltas)
			ms := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }
			if len(deltas) > 0 {
				b.ReportMetric(ms(deltas[len(deltas)/2]), "delta-p50-ms")
				b.ReportMetric(ms(deltas[len(deltas)-1]), "delta-max-ms")
			}
			b.ReportMetric(float64(len(deltas))/float64(b.N), "deltas/save")
		})
	}
}
