// Package duration provides [Duration], a [time.Duration] that reads and writes itself
// in JSON as a Go duration string ("5m", "1h30m", "250ms"), so the assessment's
// configuration files stay readable. It does nothing else.
package duration

import (
	"fmt"
	"time"
)

// Duration is a [time.Duration] whose JSON and text form is a Go duration string
// such as "5m0s". Decoding accepts anything [time.ParseDuration] accepts; negative
// durations are rejected because every configured duration in the assessment is a
// window, a cooldown or a timeout.
type Duration time.Duration

// Std returns d as a [time.Duration].
func (d Duration) Std() time.Duration { return time.Duration(d) }

// String returns d in [time.Duration.String] form.
func (d Duration) String() string { return time.Duration(d).String() }

// MarshalText encodes d as a duration string.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText decodes a duration string such as "90s" or "5m".
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("duration: %w", err)
	}
	if v < 0 {
		return fmt.Errorf("duration: %q is negative", b)
	}
	*d = Duration(v)
	return nil
}
