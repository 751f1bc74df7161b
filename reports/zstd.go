package reports

import (
	"runtime"
	"sync"

	kzstd "github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go/compress/zstd"
)

// zstdCodec is parquet-go's zstd codec (level SpeedDefault) with encoders that last:
// parquet-go keeps its encoders in a sync.Pool, which every garbage collection empties,
// so a replay made a new encoder — megabytes of history buffer — for most pages of
// every table, and each table had a pool of its own. An output's tables share one
// zstdCodec, whose encoders stay until the output is done: one per page compressed at
// once, and no more than GOMAXPROCS of them — a table encoding beside the others waits
// for a free one rather than make another. It compresses exactly as parquet-go's codec does (the same encoder options,
// one EncodeAll per page), byte for byte; a test checks it.
type zstdCodec struct {
	zstd.Codec // names the codec and decodes

	mu   sync.Mutex
	free []*kzstd.Encoder
	// slots holds a token per encoder in use: at most its capacity at once.
	slots chan struct{}
}

func newZstdCodec() *zstdCodec {
	return &zstdCodec{Codec: zstd.Codec{Level: zstd.SpeedDefault}, slots: make(chan struct{}, runtime.GOMAXPROCS(0))}
}

// Encode compresses src into dst, as zstd.Codec.Encode does.
func (c *zstdCodec) Encode(dst, src []byte) ([]byte, error) {
	c.slots <- struct{}{}
	defer func() { <-c.slots }()
	e, err := c.get()
	if err != nil {
		return nil, err
	}
	out := e.EncodeAll(src, dst[:0])
	c.mu.Lock()
	c.free = append(c.free, e)
	c.mu.Unlock()
	return out, nil
}

func (c *zstdCodec) get() (*kzstd.Encoder, error) {
	c.mu.Lock()
	if n := len(c.free); n > 0 {
		e := c.free[n-1]
		c.free = c.free[:n-1]
		c.mu.Unlock()
		return e, nil
	}
	c.mu.Unlock()
	// parquet-go's options (compress/zstd.Codec.Encode) at its default concurrency, and
	// lower memory: a history buffer of one window and a block, not two windows (8 MB
	// less an encoder; the sizes of buffers only, the same output).
	return kzstd.NewWriter(nil, kzstd.WithEncoderConcurrency(zstd.DefaultConcurrency), kzstd.WithEncoderLevel(c.Level),
		kzstd.WithZeroFrames(true), kzstd.WithEncoderCRC(false), kzstd.WithLowerEncoderMem(true))
}
