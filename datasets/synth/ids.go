package synth

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"time"
)

// uuid4 returns a random (version 4, RFC 9562 variant) UUID drawn from rng.
func uuid4(rng *rand.Rand) string {
	var b [16]byte
	fill(rng, b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return formatUUID(b)
}

// uuid7 returns a version 7 UUID whose first 48 bits are t's Unix milliseconds and
// whose other bits (but version and variant) are drawn from rng.
func uuid7(t time.Time, rng *rand.Rand) string {
	var b [16]byte
	fill(rng, b[:])
	ms := uint64(t.UnixMilli())
	for i := range 6 {
		b[i] = byte(ms >> (40 - 8*i))
	}
	b[6] = b[6]&0x0f | 0x70
	b[8] = b[8]&0x3f | 0x80
	return formatUUID(b)
}

func fill(rng *rand.Rand, b []byte) {
	for i := 0; i < len(b); i += 8 {
		v := rng.Uint64()
		for j := i; j < len(b) && j < i+8; j++ {
			b[j] = byte(v)
			v >>= 8
		}
	}
}

func formatUUID(b [16]byte) string {
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// token returns prefix followed by n base-62 characters drawn from rng: the shape of
// Anthropic API ids (toolu_01…, msg_01…, req_011C…).
func token(rng *rand.Rand, prefix string, n int) string {
	b := make([]byte, 0, len(prefix)+n)
	b = append(b, prefix...)
	for range n {
		b = append(b, base62[rng.IntN(len(base62))])
	}
	return string(b)
}

// hexID returns n lower-case hex digits drawn from rng (subagent ids).
func hexID(rng *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = "0123456789abcdef"[rng.IntN(16)]
	}
	return string(b)
}

// stamp formats t as Claude Code writes timestamps: RFC 3339, UTC, milliseconds.
func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// kv is one member of an [obj].
type kv struct {
	k string
	v any
}

// obj is a JSON object whose members are written in the order given, as the tools
// that write the formats do (Go's maps would sort them).
type obj []kv

// MarshalJSON writes the members in order, without HTML escaping.
func (o obj) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			buf.WriteByte(',')
		}
		k, err := marshal(m.k)
		if err != nil {
			return nil, err
		}
		buf.Write(k)
		buf.WriteByte(':')
		v, err := marshal(m.v)
		if err != nil {
			return nil, err
		}
		buf.Write(v)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// marshal encodes v as compact JSON without HTML escaping ("<command-name>" stays as
// it is, as JavaScript's JSON.stringify and serde write it).
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// line encodes v as one JSONL line (with its newline).
func line(v any) []byte {
	b, err := marshal(v)
	if err != nil {
		panic(fmt.Sprintf("synth: encoding a generated record: %v", err)) // generated values always encode
	}
	return append(b, '\n')
}
