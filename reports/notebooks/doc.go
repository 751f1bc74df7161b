// Package notebooks holds loopwatch's example notebooks (loopwatch.ipynb): how an
// analyst loads replay's and tune's outputs (Parquet with DuckDB and pandas, the sweep's
// Arrow file memory-mapped with pyarrow) and plots them. The package has no code; its
// test runs every SQL statement of the notebooks with DuckDB against fresh output of
// the built-in sample (a replay and a tune), so the notebooks cannot drift from the
// tables.
package notebooks
