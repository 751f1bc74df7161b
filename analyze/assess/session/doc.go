// Package session holds what the vibes assessment keeps per session between
// events (seed assessment-logic.md, "Session End Detection" and "Sampling Strategy"):
// the bounded [Buffer] of events and their signals, with the [Segment] since the last
// checkpoint and the [Transcript] handed to session analysis; the end-of-session
// detectors ([HookEndDetector], [TimeoutEndDetector]); and the [Sampler] that picks
// which ended sessions get a heavy assessment.
//
// What it refuses to do: it never reads the clock (the inactivity timeout runs on
// event time), never draws from a global random source (sampling is seeded and
// keyed by session id), and keeps no package-level mutable state.
package session
