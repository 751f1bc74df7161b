package pipeline

import "github.com/loopwatch/loopwatch/eval"

// observations holds a detector's observations while results stream through, one per
// run or session for the whole replay: compactly (the label as an index into a few
// distinct labels) and in fixed-size chunks, so that growing never copies what is held
// nor keeps more than one chunk of spare room. A replay of 100,000 sessions holds
// eight of them per session; as []eval.Observation grown by append they took about
// twice the memory. all rebuilds the []eval.Observation the metrics take, one detector
// at a time.
type observations struct {
	labels []eval.Label // the distinct labels met, indexed by compactObs.label
	chunks chunked[compactObs]
}

type compactObs struct {
	key       string
	score     float64
	label     uint8
	predicted bool
}

func (o *observations) add(ob eval.Observation) {
	i := 0
	for i < len(o.labels) && o.labels[i] != ob.Label {
		i++
	}
	if i == len(o.labels) {
		o.labels = append(o.labels, ob.Label) // at most the five labels eval knows
	}
	o.chunks.add(compactObs{key: ob.Key, score: ob.Score, label: uint8(i), predicted: ob.Predicted})
}

// all returns the observations in the order they were added.
func (o *observations) all() []eval.Observation {
	out := make([]eval.Observation, 0, o.chunks.len())
	o.chunks.each(func(c *compactObs) {
		out = append(out, eval.Observation{Key: c.key, Label: o.labels[c.label], Predicted: c.predicted, Score: c.score})
	})
	return out
}

// chunkLen is the length of a chunk of a chunked list.
const chunkLen = 1024

// chunked is an append-only list kept in chunks of chunkLen.
type chunked[T any] struct {
	full [][]T
	cur  []T
}

func (c *chunked[T]) add(v T) {
	if c.cur == nil {
		c.cur = make([]T, 0, chunkLen)
	}
	c.cur = append(c.cur, v)
	if len(c.cur) == chunkLen {
		c.full, c.cur = append(c.full, c.cur), nil
	}
}

func (c *chunked[T]) len() int { return len(c.full)*chunkLen + len(c.cur) }

func (c *chunked[T]) each(f func(*T)) {
	for _, ch := range c.full {
		for i := range ch {
			f(&ch[i])
		}
	}
	for i := range c.cur {
		f(&c.cur[i])
	}
}
