import { readFileSync } from 'node:fs';
import { DuckDBInstance } from '@duckdb/node-api';
const twin = JSON.parse(readFileSync('/tmp/shapes/twin.json', 'utf8'));
const lines = readFileSync('/tmp/shapes/sql.txt', 'utf8').trim().split('\n');
const db = await DuckDBInstance.create(':memory:');
const conn = await db.connect();
for (const sql of twin.setup) await conn.run(sql);
await conn.run('SET threads = 1');
for (const line of lines) {
  const [name, sql] = line.split('\t');
  let best = 1e9, row;
  for (let i = 0; i < 4; i++) {
    const t = performance.now();
    const r = await conn.runAndReadAll(sql);
    const ms = performance.now() - t;
    if (i > 0) best = Math.min(best, ms);
    row = r.getRows()[0];
  }
  console.log(name, best.toFixed(0), JSON.stringify(row));
}
