package vibeslog

import (
	"errors"
	"time"
)

// EventTime returns the time a UUIDv7 event id carries: its first 48 bits are Unix
// milliseconds (RFC 9562). id is the canonical 36-character hyphenated form or 32 hex
// digits. It fails when id is not a version 7 UUID of the RFC 9562 variant.
func EventTime(id string) (time.Time, error) {
	var hex [32]byte
	switch len(id) {
	case 36:
		if id[8] != '-' || id[13] != '-' || id[18] != '-' || id[23] != '-' {
			return time.Time{}, errors.New("hyphens not at 8, 13, 18, 23")
		}
		copy(hex[0:8], id[0:8])
		copy(hex[8:12], id[9:13])
		copy(hex[12:16], id[14:18])
		copy(hex[16:20], id[19:23])
		copy(hex[20:32], id[24:36])
	case 32:
		copy(hex[:], id)
	default:
		return time.Time{}, errors.New("not 36 characters (or 32 hex digits)")
	}
	var v [16]byte
	for i := range v {
		hi, ok1 := unhex(hex[2*i])
		lo, ok2 := unhex(hex[2*i+1])
		if !ok1 || !ok2 {
			return time.Time{}, errors.New("not hexadecimal")
		}
		v[i] = hi<<4 | lo
	}
	if v[6]>>4 != 7 {
		return time.Time{}, errors.New("version " + string("0123456789abcdef"[v[6]>>4]) + ", not 7")
	}
	if v[8]>>6 != 2 {
		return time.Time{}, errors.New("not the RFC 9562 variant")
	}
	ms := int64(v[0])<<40 | int64(v[1])<<32 | int64(v[2])<<24 | int64(v[3])<<16 | int64(v[4])<<8 | int64(v[5])
	return time.UnixMilli(ms).UTC(), nil
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
