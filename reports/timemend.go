package reports

import (
	"reflect"
	"strings"
	"time"
	"unsafe"
)

// TimeMend undoes what parquet-go does to a time it reads into a time.Time (or
// *time.Time) field from a millisecond or microsecond column: it turns the column's
// value into nanoseconds by a multiplication in an int64, which wraps for a time
// outside 1677–2262. The file holds the time right (DuckDB reads it so), but read
// into a row, 0001-01-01 comes back as 1754. Readers keep such times where an input
// holds them (a clock fault reported and kept as written), so every row read back
// goes through Mend.
//
// The multiplication loses only the top bits of the value (by 1e6: 2^6 × 15625, the
// odd factor invertible modulo 2^64), so the value is recovered exactly whenever it
// is within 2^57 milliseconds (2^60 microseconds) of 1970: some 4.5 million years, far
// past any time an input can state.
type TimeMend[T any] struct {
	fields []timeField
}

type timeField struct {
	offset uintptr // from the row's start: fields of nested struct values add up
	ptr    bool    // *time.Time
	shift  uint
	inv    uint64 // the inverse of the unit's odd factor, modulo 2^64
}

// NewTimeMend finds T's time fields stored in milliseconds or microseconds, by their
// parquet tags.
func NewTimeMend[T any]() TimeMend[T] {
	var m TimeMend[T]
	m.fields = timeFields(reflect.TypeFor[T](), 0, m.fields)
	return m
}

var (
	timeType    = reflect.TypeFor[time.Time]()
	timePtrType = reflect.TypeFor[*time.Time]()
)

func timeFields(t reflect.Type, at uintptr, dst []timeField) []timeField {
	if t.Kind() != reflect.Struct {
		return dst
	}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		if f.Type != timeType && f.Type != timePtrType {
			dst = timeFields(f.Type, at+f.Offset, dst)
			continue
		}
		tag := f.Tag.Get("parquet")
		var shift uint
		var odd uint64
		switch {
		case strings.Contains(tag, "timestamp(millisecond"):
			shift, odd = 6, 15625 // 1e6 = 2^6 × 15625
		case strings.Contains(tag, "timestamp(microsecond"):
			shift, odd = 3, 125 // 1e3 = 2^3 × 125
		default:
			continue // nanoseconds: nothing multiplied
		}
		dst = append(dst, timeField{offset: at + f.Offset, ptr: f.Type == timePtrType, shift: shift, inv: inverse(odd)})
	}
	return dst
}

// inverse returns the inverse of an odd number modulo 2^64 (Newton's iteration: each
// step doubles the bits that are right, from 3 at the start).
func inverse(odd uint64) uint64 {
	x := odd
	for range 5 {
		x *= 2 - odd*x
	}
	return x
}

// Mend restores the times of rows just read by parquet-go, once: a far-off time
// mended again is not.
func (m TimeMend[T]) Mend(rows []T) {
	if len(m.fields) == 0 {
		return
	}
	for i := range rows {
		row := unsafe.Pointer(&rows[i])
		for _, f := range m.fields {
			// The offsets are reflect's for T's fields of type time.Time and *time.Time
			// (in struct values, never through a pointer), so each points at one.
			at := unsafe.Add(row, f.offset)
			if f.ptr {
				if p := *(**time.Time)(at); p != nil {
					*p = f.mend(*p)
				}
				continue
			}
			if p := (*time.Time)(at); !p.IsZero() { // a null reads as the zero time, not as 1970
				*p = f.mend(*p)
			}
		}
	}
}

// mend returns the time whose value in the field's unit, multiplied into nanoseconds
// with wrapping, is t's nanoseconds.
func (f timeField) mend(t time.Time) time.Time {
	n := uint64(t.UnixNano())
	v := int64(((n>>f.shift)*f.inv)<<f.shift) >> f.shift // the value, sign-extended from 64−shift bits
	if f.shift == 6 {
		return time.UnixMilli(v).UTC()
	}
	return time.UnixMicro(v).UTC()
}
