// Package htmlreport renders a replay's, a tuning's or a regression run's results as
// one self-contained HTML file that people read in a browser: a summary of metrics,
// PR and ROC curves per detector with several configurations overlaid, threshold
// sweeps, lead-time histograms, struggle score trajectories of runs, frustration
// trajectories of sessions with the interventions and the labelled friction marked,
// and the input's problems and notes.
//
// The charts are SVG drawn by this package; the page has inline CSS, no script, and
// a Content-Security-Policy that forbids loading anything, so it reads the same
// offline, in a mail attachment, or in a browser with JavaScript off. The caller
// fills a [Data] — every section optional — and calls [Render] or [WriteFile]; the
// same Data gives byte-identical output. All text is escaped, whatever it holds.
package htmlreport
