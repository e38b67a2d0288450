// Runs one benchmark workload in DuckDB through @duckdb/node-api, the native twin of the page's DuckDB-WASM
// series; `go run mage.go benchnative` (magefile_native.go) starts one process a workload.
//
// Usage: node wasm/bench/duckdb.mjs RUNS THREADS[,THREADS…] TEMPDIR < twin.json
//
// twin.json is one line of the bench command's -sql output: {"setup": [SQL…], "sql": SQL}. The setup makes
// the tables, untimed, with DuckDB's default threads. Then for each thread count: SET threads, a warm-up run,
// RUNS timed runs. It prints one JSON object: the process's resident size before DuckDB starts and with the tables made, what
// DuckDB counts its tables as holding (duckdb_memory()), and per thread count the digest, the
// wall and CPU ms of each timed run and the peak resident size of the warm-up run. Resident sizes are the
// whole node process's (V8 included), read from /proc/self/status; the peak restarts from the current size
// (writing 5 to /proc/self/clear_refs) just before the warm-up, as the Go side's does.
import { readFileSync, writeFileSync } from 'node:fs';
import { DuckDBInstance } from '@duckdb/node-api';

const [runsArg, threadsArg, tempDir] = process.argv.slice(2);
const runs = Number(runsArg);
const threads = (threadsArg ?? '').split(',').map(Number);
if (!(runs > 0) || threads.some((t) => !(t > 0)) || !tempDir) {
  console.error('usage: node duckdb.mjs RUNS THREADS[,THREADS…] TEMPDIR < twin.json');
  process.exit(2);
}
const twin = JSON.parse(readFileSync(0, 'utf8'));

function residentMiB(field) {
  const m = readFileSync('/proc/self/status', 'utf8').match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'));
  return m ? Number(m[1]) / 1024 : 0;
}

function resetPeak() {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
  } catch {
    // not Linux: the peak stays the process's lifetime peak
  }
}

const baseMiB = residentMiB('VmRSS'); // node and V8 before DuckDB holds anything
const db = await DuckDBInstance.create(':memory:', { temp_directory: tempDir });
const conn = await db.connect();
for (const sql of twin.setup) {
  await conn.run(sql);
}

// digest runs the query and returns its one row's three VARCHAR columns, as the Go side's Digest.
async function digest() {
  const reader = await conn.runAndReadAll(twin.sql);
  const row = reader.getRows()[0] ?? [];
  const cell = (v) => (v === null || v === undefined ? 'null' : String(v));
  return { count: cell(row[0]), sum1: cell(row[1]), sum2: cell(row[2]) };
}

// DuckDB's own count of the memory its tables hold, beside the process's resident size.
const tables = await conn.runAndReadAll(
  `SELECT coalesce(sum(memory_usage_bytes), 0)::VARCHAR FROM duckdb_memory() WHERE tag = 'IN_MEMORY_TABLE'`,
);
const out = {
  base_mib: baseMiB,
  data_mib: residentMiB('VmRSS'),
  tables_mib: Number(tables.getRows()[0][0]) / (1 << 20),
  series: [],
};
for (const t of threads) {
  await conn.run(`SET threads = ${t}`);
  resetPeak();
  const first = await digest();
  const s = { threads: t, digest: first, peak_mib: residentMiB('VmHWM'), times_ms: [], cpu_ms: [] };
  for (let i = 0; i < runs; i++) {
    const cpu = process.cpuUsage();
    const start = performance.now();
    const got = await digest();
    s.times_ms.push(performance.now() - start);
    const used = process.cpuUsage(cpu);
    s.cpu_ms.push((used.user + used.system) / 1000);
    if (JSON.stringify(got) !== JSON.stringify(first)) {
      console.error(`duckdb: digest changed between runs: ${JSON.stringify(first)} then ${JSON.stringify(got)}`);
      process.exit(1);
    }
  }
  out.series.push(s);
}
console.log(JSON.stringify(out));
