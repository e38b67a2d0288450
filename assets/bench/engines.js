// What both benchmark pages share: starting bench.wasm, starting DuckDB-WASM in one of its bundles, and the
// statistics of a series of runs. bench.js (generated tables) and files.js (own data) import it.
import * as duckdb from './duckdb/duckdb-browser.mjs';

// DUCKDB_THREADS is the threaded bundle's thread count: this machine has two cores.
export const DUCKDB_THREADS = 2;

// startWasm runs bench.wasm and resolves to its API, globalThis.joinlabBench, once it is ready.
export async function startWasm() {
  const ready = new Promise((resolve) => window.addEventListener('joinlab-bench-ready', resolve, { once: true }));
  const go = new Go();
  const { instance } = await WebAssembly.instantiateStreaming(fetch('bench.wasm'), go.importObject);
  go.run(instance);
  await ready;
  return window.joinlabBench;
}

// startDuckDB starts DuckDB-WASM's bundle ('eh' single-threaded, 'coi' threaded) in a worker and resolves to
// {name, db, conn}; name is 'duckdb-1t' or 'duckdb-<threads>t'.
export async function startDuckDB(bundle, threads) {
  // Absolute URLs: DuckDB's worker resolves relative ones against its own location.
  const url = (f) => new URL(`duckdb/${f}`, location.href).href;
  const worker = new Worker(url(`duckdb-browser-${bundle}.worker.js`));
  const db = new duckdb.AsyncDuckDB(new duckdb.VoidLogger(), worker);
  const pthread = bundle === 'coi' ? url('duckdb-browser-coi.pthread.worker.js') : null;
  await db.instantiate(url(`duckdb-${bundle}.wasm`), pthread);
  const conn = await db.connect();
  if (bundle === 'coi') {
    // duckdb-wasm issue #2256: a pthread's view of the heap goes stale when shared memory grows mid-query
    // ("RangeError: offset is out of bounds"). Growing the heap once, single-threaded, before any timed
    // run avoids it.
    await conn.query('SET threads=1');
    await conn.query('CREATE TABLE jl_grow AS SELECT range AS x, range::VARCHAR AS s FROM range(30000000)');
    await conn.query('DROP TABLE jl_grow');
  }
  await conn.query(`SET threads=${threads}`);
  return { name: bundle === 'coi' ? `duckdb-${threads}t` : 'duckdb-1t', db, conn };
}

// digestOf reads a digest query's answer: one row of three columns, as strings.
export function digestOf(table) {
  const cell = (i) => { const v = table.getChildAt(i).get(0); return v === null ? 'null' : String(v); };
  return { count: cell(0), sum1: cell(1), sum2: cell(2) };
}

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}
