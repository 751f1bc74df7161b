package reports

import (
	"bytes"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/parquet-go/parquet-go/compress/zstd"
)

// TestZstdCodec: the shared codec compresses exactly as parquet-go's zstd codec at
// the same level — inputs from empty to past a block, repetitive and random, from
// goroutines at once — and what it writes decodes back.
func TestZstdCodec(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var inputs [][]byte
	for _, n := range []int{0, 1, 100, 1 << 10, 1<<10 + 1, 64 << 10, 300 << 10, 2 << 20} {
		random := make([]byte, n)
		for i := range random {
			random[i] = byte(rng.IntN(256))
		}
		repetitive := bytes.Repeat([]byte("run_key synth-0001@e1 approved 0.25 "), n/36+1)[:n]
		inputs = append(inputs, random, repetitive)
	}
	ours, theirs := newZstdCodec(), &zstd.Codec{Level: zstd.SpeedDefault}
	var wg sync.WaitGroup
	for g := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, in := range inputs {
				got, err := ours.Encode(nil, in)
				if err != nil {
					t.Error(err)
					return
				}
				want, _ := theirs.Encode(nil, in)
				if !bytes.Equal(got, want) {
					t.Errorf("goroutine %d, input %d (%d bytes): the shared codec's output differs from parquet-go's", g, i, len(in))
				}
				back, err := ours.Decode(nil, got)
				if err != nil || !bytes.Equal(back, in) {
					t.Errorf("input %d does not decode back: %v", i, err)
				}
			}
		}()
	}
	wg.Wait()
	if n := len(ours.free); n == 0 || n > 3 {
		t.Errorf("%d encoders kept for 3 goroutines", n)
	}
}

// TestZstdCodecBoundsEncoders: however many goroutines compress at once, the codec
// makes no more encoders than it has slots (GOMAXPROCS), and compresses each input
// as alone.
func TestZstdCodecBoundsEncoders(t *testing.T) {
	c := newZstdCodec()
	src := bytes.Repeat([]byte("session s-1 event 42 tool_result ok "), 4000)
	want, err := newZstdCodec().Encode(nil, src)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 4 * cap(c.slots) {
		wg.Go(func() {
			for range 20 {
				got, err := c.Encode(nil, src)
				if err != nil || !bytes.Equal(got, want) {
					t.Errorf("compressed at once: %d bytes, %v; want %d bytes", len(got), err, len(want))
					return
				}
			}
		})
	}
	wg.Wait()
	if n := len(c.free); n == 0 || n > cap(c.slots) {
		t.Errorf("%d encoders made, want 1 to %d", n, cap(c.slots))
	}
}
