package reports

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
)

// gatedPool is a page buffer pool whose buffers' writes wait at a gate, fail after a
// number of writes, or sleep a random while: a table's encoder held, failing or slow.
type gatedPool struct {
	parquet.BufferPool
	gate   chan struct{} // writes wait until it is closed (nil: no wait)
	failAt int64         // the write that fails (0: none)
	jitter *rand.Rand    // sleeps up to 200 µs a write (nil: none)
	mu     sync.Mutex
	writes atomic.Int64
}

func (p *gatedPool) GetBuffer() io.ReadWriteSeeker {
	return &gatedBuffer{ReadWriteSeeker: p.BufferPool.GetBuffer(), pool: p}
}

func (p *gatedPool) PutBuffer(b io.ReadWriteSeeker) {
	p.BufferPool.PutBuffer(b.(*gatedBuffer).ReadWriteSeeker)
}

type gatedBuffer struct {
	io.ReadWriteSeeker
	pool *gatedPool
}

func (b *gatedBuffer) Write(p []byte) (int, error) {
	if b.pool.gate != nil {
		<-b.pool.gate
	}
	if n := b.pool.writes.Add(1); n == b.pool.failAt {
		return 0, errors.New("disk full")
	}
	if b.pool.jitter != nil {
		b.pool.mu.Lock()
		d := time.Duration(b.pool.jitter.IntN(200)) * time.Microsecond
		b.pool.mu.Unlock()
		time.Sleep(d)
	}
	return b.ReadWriteSeeker.Write(p)
}

// fatRows returns n prediction rows whose run keys fill two pages a batch, so that
// every batch of them has the encoder write pages.
func fatRows(n int) []PredictionRow {
	rows := make([]PredictionRow, n)
	key := strings.Repeat("k", 2*PageBytes/writeBatch)
	for i := range rows {
		rows[i] = PredictionRow{RunKey: fmt.Sprintf("%d-%s", i, key), Kind: "quasar_run"}
	}
	return rows
}

// TestTableWriteWaitsForTheEncoder: Write hands a full batch to the table's encoder and
// goes on, but waits once the encoder is a batch behind — a table holds two batches,
// one gathering and one being encoded — and goes on again once the encoder does.
func TestTableWriteWaitsForTheEncoder(t *testing.T) {
	out, err := NewOutput(filepath.Join(t.TempDir(), "res.parquet"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Abort()
	pool := &gatedPool{BufferPool: parquet.NewBufferPool(), gate: make(chan struct{})}
	out.pages = pool
	table, err := NewTable[PredictionRow](out, "predictions")
	if err != nil {
		t.Fatal(err)
	}
	rows := fatRows(4 * writeBatch)
	var written atomic.Int64 // batches Write returned from
	finished := make(chan error)
	go func() {
		for i := 0; i < len(rows); i += writeBatch {
			if err := table.Write(rows[i : i+writeBatch]...); err != nil {
				finished <- err
				return
			}
			written.Add(1)
		}
		finished <- nil
	}()
	// The first batch is handed over (its encoding waits at the gate); the second is
	// gathered and handed over, and Write waits for a batch to gather the third into.
	deadline := time.Now().Add(10 * time.Second)
	for written.Load() < 1 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	if n := written.Load(); n != 1 {
		t.Fatalf("%d batches written while the encoder was held, want 1 (the second waits)", n)
	}
	close(pool.gate)
	if err := <-finished; err != nil {
		t.Fatal(err)
	}
	if err := out.Commit(); err != nil {
		t.Fatal(err)
	}
	if n := table.Rows(); n != int64(len(rows)) {
		t.Errorf("%d rows, want %d", n, len(rows))
	}
}

// TestTableEncoderFailure: a batch the encoder cannot write fails a later Write, Seal
// and the commit with its error; nothing is left behind, and no encoder goes on
// running.
func TestTableEncoderFailure(t *testing.T) {
	before := runtime.NumGoroutine()
	for _, end := range []string{"seal", "commit", "abort"} {
		t.Run(end, func(t *testing.T) {
			dir := t.TempDir()
			out, err := NewOutput(filepath.Join(dir, "res.parquet"), nil)
			if err != nil {
				t.Fatal(err)
			}
			out.pages = &gatedPool{BufferPool: parquet.NewBufferPool(), failAt: 3}
			table, err := NewTable[PredictionRow](out, "predictions")
			if err != nil {
				t.Fatal(err)
			}
			other, err := NewTable[ProblemRow](out, "problems")
			if err != nil {
				t.Fatal(err)
			}
			if err := other.Write(ProblemRow{File: "f"}); err != nil {
				t.Fatal(err)
			}
			rows := fatRows(8 * writeBatch)
			var werr error
			for i := 0; i < len(rows) && werr == nil; i += writeBatch {
				werr = table.Write(rows[i : i+writeBatch]...)
			}
			switch end {
			case "seal":
				err = table.Seal()
				if err == nil || !strings.Contains(err.Error(), "disk full") {
					t.Errorf("seal: %v, want the encoder's error", err)
				}
				err = out.Commit()
			case "commit":
				err = out.Commit()
			case "abort":
				out.Abort() // nothing to check but what is left
			}
			if end != "abort" && (err == nil || !strings.Contains(err.Error(), "disk full")) {
				t.Errorf("writing (%v), then %s: %v, want the encoder's error", werr, end, err)
			}
			if werr != nil && !strings.Contains(werr.Error(), "disk full") {
				t.Errorf("a later Write failed with %v, want the encoder's error", werr)
			}
			for _, e := range entries(t, dir) {
				t.Errorf("%s left behind", e)
			}
		})
	}
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after the outputs ended, %d before: an encoder goes on", n, before)
	}
}

// TestTableBytesDoNotDependOnTiming: the same rows in the same writes give the same
// bytes however the encoder's pace and the caller's alternate, sealed one by one,
// together (SealAll) or at the commit.
func TestTableBytesDoNotDependOnTiming(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	rows := make([]PredictionRow, 40000)
	for i := range rows {
		score := rng.Float64()
		rows[i] = PredictionRow{RunKey: fmt.Sprintf("run-%d", rng.IntN(1e6)), Kind: "quasar_run", StruggleScore: &score}
	}
	problems := make([]ProblemRow, 5000)
	for i := range problems {
		problems[i] = ProblemRow{File: fmt.Sprintf("f%d", i%7), Line: int32(i), Detail: strings.Repeat("d", i%50)}
	}
	write := func(seed uint64, end string) map[string][]byte {
		t.Helper()
		dir := t.TempDir()
		out, err := NewOutput(filepath.Join(dir, "res.parquet"), map[string]string{"k": "v"})
		if err != nil {
			t.Fatal(err)
		}
		if seed != 0 {
			out.pages = &gatedPool{BufferPool: parquet.NewBufferPool(), jitter: rand.New(rand.NewPCG(seed, seed))}
		}
		preds := mustTable[PredictionRow](t, out, "predictions")
		probs := mustTable[ProblemRow](t, out, "problems")
		for i, j := 0, 0; i < len(rows) || j < len(problems); i, j = i+37, j+3 {
			if i < len(rows) {
				if err := preds.Write(rows[i:min(i+37, len(rows))]...); err != nil {
					t.Fatal(err)
				}
			}
			if j < len(problems) {
				if err := probs.Write(problems[j:min(j+3, len(problems))]...); err != nil {
					t.Fatal(err)
				}
			}
		}
		switch end {
		case "seal":
			if err := preds.Seal(); err != nil {
				t.Fatal(err)
			}
			if err := probs.Seal(); err != nil {
				t.Fatal(err)
			}
		case "sealall":
			if err := SealAll(preds, probs); err != nil {
				t.Fatal(err)
			}
		}
		if err := out.Commit(); err != nil {
			t.Fatal(err)
		}
		files := map[string][]byte{}
		for _, name := range []string{"res.predictions.parquet", "res.problems.parquet", "res.manifest.json"} {
			b, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			files[name] = b
		}
		return files
	}
	want := write(0, "commit")
	for seed, end := range map[uint64]string{1: "commit", 2: "seal", 3: "sealall", 4: "sealall"} {
		got := write(seed, end)
		for name, b := range want {
			if !bytes.Equal(got[name], b) {
				t.Errorf("encoder pace %d, ended by %s: %s differs", seed, end, name)
			}
		}
	}
}

// TestSealAll: SealAll returns the first error in the order the tables are given, and
// seals the others.
func TestSealAll(t *testing.T) {
	dir := t.TempDir()
	out, err := NewOutput(filepath.Join(dir, "res.parquet"), nil)
	if err != nil {
		t.Fatal(err)
	}
	a := mustTable[ProblemRow](t, out, "a")
	b := mustTable[ProblemRow](t, out, "b")
	c := mustTable[ProblemRow](t, out, "c")
	if err := a.Write(ProblemRow{File: "a"}); err != nil {
		t.Fatal(err)
	}
	if err := b.Write(ProblemRow{File: "b"}); err != nil {
		t.Fatal(err)
	}
	other, err := NewOutput(filepath.Join(t.TempDir(), "other.parquet"), nil)
	if err != nil {
		t.Fatal(err)
	}
	gone := mustTable[ProblemRow](t, other, "gone")
	other.Abort()
	err = SealAll(a, gone, b, failingSealer{"late"})
	if err == nil || !strings.Contains(err.Error(), "committed or aborted") {
		t.Errorf("SealAll: %v, want the aborted output's table's error first", err)
	}
	if !a.sealed || !b.sealed || c.sealed {
		t.Errorf("sealed: a %v, b %v, c %v; want a and b, not c", a.sealed, b.sealed, c.sealed)
	}
	if err := out.Commit(); err != nil {
		t.Fatal(err)
	}
}

type failingSealer struct{ why string }

func (f failingSealer) Seal() error { return errors.New(f.why) }

// TestSmallTableEncodesAtTheEnd: a table of fewer rows than a batch starts no encoder;
// its rows are encoded when it is committed, and read back.
func TestSmallTableEncodesAtTheEnd(t *testing.T) {
	dir := t.TempDir()
	out, err := NewOutput(filepath.Join(dir, "res.parquet"), nil)
	if err != nil {
		t.Fatal(err)
	}
	table, err := NewTable[ProblemRow](out, "problems")
	if err != nil {
		t.Fatal(err)
	}
	for i := range writeBatch - 1 {
		if err := table.Write(ProblemRow{File: "f", Line: int32(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if table.batches != nil {
		t.Error("an encoder started before a batch was full")
	}
	if err := out.Commit(); err != nil {
		t.Fatal(err)
	}
	rows, err := ReadRows[ProblemRow](filepath.Join(dir, "res.problems.parquet"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != writeBatch-1 || rows[len(rows)-1].Line != writeBatch-2 {
		t.Errorf("%d rows read back, want %d", len(rows), writeBatch-1)
	}
}
