// Package notebooks holds loopwatch's example notebooks (loopwatch.ipynb): how an
// analyst loads replay's Parquet output with DuckDB and pandas and plots it. The
// package has no code; its test runs every SQL statement of the notebooks with
// DuckDB against fresh output of the built-in sample, so the notebooks cannot drift
// from the tables.
package notebooks
