// The own-data benchmark of issue 21: the users and events files that internal/filebench writes, served next to
// this page under data/, are fetched once (untimed). Then, for every query of internal/filebench.Queries:
// joinlab (bench.wasm) parses the two files' bytes through the engine's chunked reader and runs the KQL, load
// and join timed apart; DuckDB-WASM, which holds the same bytes as registered files, runs the SQL
// (read_json_auto / read_csv over them) as one query, and then split as joinlab's is, the files loaded into
// tables (every column) and the join run over them. Without its json extension (fetched at run time; this
// machine is offline) DuckDB reads JSON lines with its built-in JSON reader instead (jsonRowsSeries below).
// Each engine's warm-up answer (count and two sums) must equal joinlab's. The page publishes window.benchResult and sets window.benchDone;
// `go run mage.go benchfiles` reads them.
import { DUCKDB_THREADS, digestOf, median, startDuckDB, startWasm } from './engines.js';

const params = new URLSearchParams(location.search);
const runs = Number(params.get('runs') || 3);
const only = (params.get('only') || '').split(',').filter(Boolean);
const threaded = params.get('threads') !== '0';
// DuckDB-WASM reads JSON with its json extension, which is not in the npm package: DuckDB fetches it from its
// extension repository when a query first needs it. Offline, that fetch breaks the engine (a threaded worker
// then hangs), so by default autoloading is off, and a JSON-lines query is skipped on DuckDB when the
// extension is not loaded; ?extensions=1 leaves autoloading on, for a machine that reaches the repository.
const autoload = params.get('extensions') === '1';

const statusEl = document.getElementById('status');
const logEl = document.getElementById('log');
const tbody = document.querySelector('#results tbody');

function log(msg) {
  logEl.textContent += msg + '\n';
  console.log(msg);
}

// linesCopy copies JSON-lines bytes, their trailing newlines left out, into a new buffer with a byte free
// before and after them, for jsonRows. DuckDB gets a copy of every file it reads (registerFileBuffer takes
// the buffer it is given away from the page), and the CSV files' copy is made before the clock starts, so
// this one is too: what is timed is turning the copy into rows.
function linesCopy(lines) {
  let n = lines.length;
  while (n > 0 && (lines[n - 1] === 10 || lines[n - 1] === 13 || lines[n - 1] === 32)) n--;
  const rows = new Uint8Array(n + 2);
  rows.set(lines.subarray(0, n), 1);
  return rows;
}

// jsonRows turns a linesCopy, in place, into the one JSON array of rows that DuckDB-WASM's built-in reader
// takes (insertJSONFromPath reads a row array or a column object, not lines): a '[' in the free byte in
// front, every newline made a comma, a ']' in the free byte at the end. The newlines are found by the typed
// array's native indexOf (a plain loop over every byte, or over 32-bit words, took longer in node). A blank
// line would make ",," and fail the reader; the generated files have none.
function jsonRows(rows) {
  rows[0] = 91; // [
  for (let i = rows.indexOf(10, 1); i >= 0; i = rows.indexOf(10, i + 1)) rows[i] = 44; // ,
  rows[rows.length - 1] = 93; // ]
}

// jsonRowsRun is one run of a JSON-lines query on DuckDB-WASM without its json extension: each file's lines
// copied (linesCopy) and turned into a row array (jsonRows; timed, as part of the load), the array handed to
// DuckDB's worker (registerFileBuffer; the copy and the hand-over untimed, as the CSV files' registration is,
// and reported apart), read into a table by the built-in reader (insertJSONFromPath, shape and types inferred
// by DuckDB: timed), and then the join over the two tables (q.JSONTablesSQL: timed). The registered array and
// the tables are dropped after the clock.
async function jsonRowsRun(duck, q, bytes) {
  let wrap = 0, register = 0, insert = 0;
  const names = [];
  try {
    for (const [file, table] of [[q.Users, 'jl_users'], [q.Events, 'jl_events']]) {
      const t0 = performance.now();
      const rows = linesCopy(bytes[file]);
      const t1 = performance.now();
      jsonRows(rows);
      const t2 = performance.now();
      const name = `${file}.rows.json`;
      names.push(name);
      await duck.db.registerFileBuffer(name, rows);
      const t3 = performance.now();
      await duck.conn.insertJSONFromPath(name, { name: table });
      const t4 = performance.now();
      wrap += t2 - t1;
      register += (t1 - t0) + (t3 - t2);
      insert += t4 - t3;
    }
    const t5 = performance.now();
    const digest = digestOf(await duck.conn.query(q.JSONTablesSQL));
    const join = performance.now() - t5;
    return { digest, ms: wrap + insert + join, load_ms: wrap + insert, join_ms: join, wrap_ms: wrap, register_ms: register };
  } finally {
    // Also after a failure, so that the next query starts from no tables and no registered arrays.
    await duck.conn.query('DROP TABLE IF EXISTS jl_users');
    await duck.conn.query('DROP TABLE IF EXISTS jl_events');
    for (const name of names) await duck.db.dropFile(name);
  }
}

function status(msg) {
  statusEl.textContent = msg;
}

function row(r) {
  const tr = document.createElement('tr');
  const f = (x) => x?.toFixed(0);
  for (const v of [r.query, r.engine, f(r.load_median_ms), f(r.join_median_ms), f(r.median_ms), f(r.min_ms),
    r.error || r.skipped || JSON.stringify(r.digest)]) {
    const td = document.createElement('td');
    td.textContent = v ?? '';
    tr.appendChild(td);
  }
  tbody.appendChild(tr);
}

// series times a warm-up and then `runs` runs of once(), which resolves to {digest, ms, load_ms?, join_ms?};
// every digest must equal expect (when given) and the warm-up's.
async function series(r, label, once, expect) {
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  try {
    status(`${label}: warm-up`);
    const warm = await once();
    r.digest = warm.digest;
    if (expect && !same(r.digest, expect)) {
      throw new Error(`digest ${JSON.stringify(r.digest)} differs from joinlab's ${JSON.stringify(expect)}`);
    }
    for (let i = 0; i < runs; i++) {
      status(`${label}: run ${i + 1}/${runs}`);
      const t = await once();
      if (!same(t.digest, r.digest)) throw new Error(`digest changed between runs: ${JSON.stringify(t.digest)}`);
      r.times_ms.push(t.ms);
      if (t.load_ms !== undefined) {
        (r.load_ms ||= []).push(t.load_ms);
        (r.join_ms ||= []).push(t.join_ms);
      }
      if (t.wrap_ms !== undefined) {
        (r.wrap_ms ||= []).push(t.wrap_ms);
        (r.register_ms ||= []).push(t.register_ms);
      }
    }
    r.median_ms = median(r.times_ms);
    r.min_ms = Math.min(...r.times_ms);
    if (r.load_ms) {
      r.load_median_ms = median(r.load_ms);
      r.join_median_ms = median(r.join_ms);
    }
    if (r.wrap_ms) {
      r.wrap_median_ms = median(r.wrap_ms);
      r.register_median_ms = median(r.register_ms);
    }
  } catch (err) {
    r.error = String(err && err.message || err);
  }
  log(`${r.query} ${r.engine}: ${r.error || r.times_ms.map((t) => t.toFixed(0)).join(' ') + ' ms'}`);
  row(r);
  return r;
}

async function main() {
  const result = { userAgent: navigator.userAgent, crossOriginIsolated: self.crossOriginIsolated, runs, files: {}, results: [] };
  window.benchResult = result;
  status('starting joinlab…');
  const api = await startWasm();
  const queries = JSON.parse(api.fileQueries()).filter((q) => !only.length || only.includes(q.Key));
  const bytes = {};
  for (const name of new Set(queries.flatMap((q) => [q.Users, q.Events]))) {
    status(`fetching ${name}…`);
    const resp = await fetch(`data/${name}`);
    if (!resp.ok) throw new Error(`fetch data/${name}: ${resp.status}`);
    bytes[name] = new Uint8Array(await resp.arrayBuffer());
    result.files[name] = bytes[name].length;
  }
  log(`files: ${JSON.stringify(result.files)}`);

  const expect = {};
  for (const q of queries) {
    const r = { query: q.Key, engine: 'joinlab', times_ms: [] };
    await series(r, `${q.Key} on joinlab`, async () => {
      const load = JSON.parse(await api.loadFiles(q.Key, bytes[q.Users], bytes[q.Events]));
      const run = JSON.parse(await api.runFile(q.Key));
      r.rows = load.rows;
      return { digest: run.digest, ms: load.ms + run.ms, load_ms: load.ms, join_ms: run.ms };
    });
    expect[q.Key] = r.digest;
    result.results.push(r);
  }

  const bundles = [['eh', 1]];
  if (threaded && self.crossOriginIsolated) bundles.push(['coi', DUCKDB_THREADS]);
  else if (threaded) log('page is not cross-origin isolated: no threaded DuckDB run');
  for (const [bundle, threads] of bundles) {
    status(`starting DuckDB-WASM (${bundle}, ${threads} thread${threads > 1 ? 's' : ''})…`);
    const duck = await startDuckDB(bundle, threads);
    if (!autoload) {
      await duck.conn.query('SET autoinstall_known_extensions=false');
      await duck.conn.query('SET autoload_known_extensions=false');
    }
    const loaded = await duck.conn.query(`SELECT count(*)::INT AS n FROM duckdb_extensions() WHERE extension_name = 'json' AND loaded`);
    const hasJSON = autoload || loaded.getChildAt(0).get(0) > 0;
    // registerFileBuffer transfers the buffer to DuckDB's worker, detaching it here: DuckDB gets a copy. The
    // JSON-lines files are registered only for read_json_auto; the built-in reader gets row arrays per run.
    for (const name of Object.keys(bytes)) {
      if (hasJSON || !name.endsWith('.jsonl')) await duck.db.registerFileBuffer(name, new Uint8Array(bytes[name]));
    }
    for (const q of queries) {
      const r = { query: q.Key, engine: duck.name, times_ms: [] };
      if (q.Format === 'jsonl' && !hasJSON) {
        // No read_json_auto: load and join as rows through the built-in reader, which has no one-query form.
        r.reader = 'insertJSONFromPath';
        await series(r, `${q.Key} on ${duck.name}, JSON reader`, () => jsonRowsRun(duck, q, bytes), expect[q.Key]);
        r.split_median_ms = r.median_ms;
        result.results.push(r);
        continue;
      }
      await series(r, `${q.Key} on ${duck.name}`, async () => {
        const t0 = performance.now();
        const digest = digestOf(await duck.conn.query(q.SQL));
        return { digest, ms: performance.now() - t0 };
      }, expect[q.Key]);
      if (!r.error) {
        // The same query split as joinlab's is: load every column of both files into tables, then join them.
        const split = { query: q.Key, engine: `${duck.name} tables`, times_ms: [] };
        await series(split, `${q.Key} on ${duck.name}, load then join`, async () => {
          const t0 = performance.now();
          for (const sql of q.LoadSQL) await duck.conn.query(sql);
          const t1 = performance.now();
          const digest = digestOf(await duck.conn.query(q.TablesSQL));
          const t2 = performance.now();
          return { digest, ms: t2 - t0, load_ms: t1 - t0, join_ms: t2 - t1 };
        }, expect[q.Key]);
        await duck.conn.query('DROP TABLE IF EXISTS jl_users');
        await duck.conn.query('DROP TABLE IF EXISTS jl_events');
        if (split.error) r.error = `load then join: ${split.error}`;
        Object.assign(r, { load_ms: split.load_ms, join_ms: split.join_ms, load_median_ms: split.load_median_ms,
          join_median_ms: split.join_median_ms, split_median_ms: split.median_ms });
      }
      result.results.push(r);
    }
    await duck.conn.close();
    await duck.db.terminate();
  }
  status('done');
}

main().catch((err) => {
  (window.benchResult ||= {}).error = String(err && err.stack || err);
  log('error: ' + window.benchResult.error);
  status('failed');
}).finally(() => { window.benchDone = true; });
