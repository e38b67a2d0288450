// Runs one query in DuckDB through @duckdb/node-api and prints its first row as JSON (integers as strings, so
// a 64-bit sum survives). The file benchmark (magefile_files.go) times this process as DuckDB's side.
// Usage: node internal/filebench/duckdb.mjs SQL
import { DuckDBInstance } from '@duckdb/node-api';

const sql = process.argv[2];
if (!sql) {
  console.error('usage: node duckdb.mjs SQL');
  process.exit(2);
}
const db = await DuckDBInstance.create(':memory:');
const conn = await db.connect();
const reader = await conn.runAndReadAll(sql);
const rows = reader.getRowObjectsJson();
console.log(JSON.stringify(rows[0] ?? {}));
