// duckdb.mjs runs SQL statements with DuckDB — an independent Parquet reader — and
// prints one JSON array holding each statement's rows, so loopwatch's tests can read
// its Parquet output the way an analyst would.
//
// Usage: node interop/duckdb.mjs "SELECT ..." ["SELECT ..." ...]
import { DuckDBInstance } from '@duckdb/node-api';

const instance = await DuckDBInstance.create(':memory:');
const connection = await instance.connect();
const results = [];
for (const sql of process.argv.slice(2)) {
  const reader = await connection.runAndReadAll(sql);
  results.push(reader.getRowObjectsJson());
}
process.stdout.write(JSON.stringify(results) + '\n');
