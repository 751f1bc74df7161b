// Package benchcmp measures commands side by side and summarises what it measured: it
// runs a child process and reads its wall time, CPU time and peak resident set size
// (the child's own rusage from wait4, no external time command), lays out paired
// repetitions so that variants alternate, and reports medians and paired ratios with a
// distribution-free interval, as a text table, Markdown and JSON.
//
// It is for comparing builds on a shared, noisy machine, where an absolute time
// measured at one moment says little about another: every figure it reports beside
// another was measured in the same alternating sequence, and the ratios are the
// result.
//
// It refuses to turn a failure into a figure: a child that cannot start or exits
// non-zero is an error carrying the end of its stderr, never a measurement, and
// ratios over unequal or empty sets of repetitions are an error.
package benchcmp
