// The browser benchmark of issue 12: joinlab (bench.wasm, built from wasm/bench) against DuckDB-WASM, single-
// threaded and with two threads, on identical data. joinlab generates each dataset inside wasm and hands back
// the SQL that makes the same tables in DuckDB (see wasm/bench/workload.go). For every engine and workload: one
// warm-up run whose digest (count and two sums) must equal joinlab's, then timed runs. The page publishes
// window.benchResult and sets window.benchDone; `go run mage.go bench` reads them.
import { DUCKDB_THREADS, digestOf, median, startDuckDB as openDuckDB, startWasm } from './engines.js';

const params = new URLSearchParams(location.search);
const runs = Number(params.get('runs') || 3);
const only = (params.get('only') || '').split(',').filter(Boolean);
// slowRunMs: a warm-up slower than this is the only run of that engine and workload (the skewed join can
// take minutes on a slow engine; one run of it says enough).
const slowRunMs = Number(params.get('slow') || 20000);

const statusEl = document.getElementById('status');
const logEl = document.getElementById('log');
const tbody = document.querySelector('#results tbody');

function log(msg) {
  logEl.textContent += msg + '\n';
  console.log(msg);
}

function status(msg) {
  statusEl.textContent = msg;
}

async function startJoinlab() {
  const api = await startWasm();
  return {
    name: 'joinlab',
    async setup(data) { return JSON.parse(await api.generate(data)); },
    async run(w) { return JSON.parse(await api.run(w)).digest; },
    // settle collects the garbage of the runs before (Settle in wasm/bench), outside the clock: a run that
    // collected a heap of 6M strings first took twice as long as the join itself.
    async settle() { await api.settle(); },
    async teardown() {},
  };
}

async function startDuckDB(bundle, threads) {
  const { name, conn } = await openDuckDB(bundle, threads);
  let tables = [];
  return {
    name,
    async setup(data, sql) {
      for (const s of sql) await conn.query(s);
      tables = sql.map((s) => /CREATE OR REPLACE TABLE (\w+)/.exec(s)).filter(Boolean).map((m) => m[1]);
    },
    async run(w) { return digestOf(await conn.query(w.SQL)); },
    async teardown() {
      for (const t of tables) await conn.query(`DROP TABLE IF EXISTS ${t}`);
    },
  };
}

function row(r) {
  const tr = document.createElement('tr');
  for (const v of [r.workload, r.engine, r.median_ms?.toFixed(1), r.min_ms?.toFixed(1), r.error || JSON.stringify(r.digest)]) {
    const td = document.createElement('td');
    td.textContent = v ?? '';
    tr.appendChild(td);
  }
  tbody.appendChild(tr);
}

async function main() {
  const result = { userAgent: navigator.userAgent, crossOriginIsolated: self.crossOriginIsolated, runs, results: [] };
  window.benchResult = result;
  status('starting joinlab…');
  const jl = await startJoinlab();
  const workloads = JSON.parse(window.joinlabBench.workloads()).filter((w) => !only.length || only.includes(w.Name));
  // The SQL text of each workload comes from the same Go table as the KQL.
  const sqlOf = JSON.parse(await window.joinlabBench.sql());
  status('starting DuckDB-WASM (eh, one thread)…');
  const engines = [jl, await startDuckDB('eh', 1)];
  if (self.crossOriginIsolated) {
    status('starting DuckDB-WASM (coi, threads)…');
    engines.push(await startDuckDB('coi', DUCKDB_THREADS));
  } else {
    log('page is not cross-origin isolated: no threaded DuckDB run');
  }
  const datasets = [...new Set(workloads.map((w) => w.Data))];
  for (const data of datasets) {
    status(`generating ${data}…`);
    const gen = await jl.setup(data);
    const expect = {};
    for (const e of engines) {
      if (e !== jl) {
        const t0 = performance.now();
        await e.setup(data, gen.sql);
        log(`${e.name}: made ${data} tables in ${(performance.now() - t0).toFixed(0)} ms`);
      }
      for (const w of workloads.filter((x) => x.Data === data)) {
        const r = { workload: w.Name, engine: e.name, rows: gen.rows, times_ms: [] };
        try {
          status(`${w.Name} on ${e.name}: warm-up`);
          let t0 = performance.now();
          r.digest = await e.run(e === jl ? w.Name : { SQL: sqlOf[w.Name] });
          const warm = performance.now() - t0;
          if (e === jl) expect[w.Name] = r.digest;
          else if (JSON.stringify(r.digest) !== JSON.stringify(expect[w.Name])) {
            throw new Error(`digest ${JSON.stringify(r.digest)} differs from joinlab's ${JSON.stringify(expect[w.Name])}`);
          }
          if (warm > slowRunMs) {
            r.times_ms.push(warm);
            r.note = 'one run (the warm-up was slower than the slow limit)';
          } else {
            for (let i = 0; i < runs; i++) {
              status(`${w.Name} on ${e.name}: run ${i + 1}/${runs}`);
              if (e.settle) await e.settle();
              t0 = performance.now();
              const d = await e.run(e === jl ? w.Name : { SQL: sqlOf[w.Name] });
              r.times_ms.push(performance.now() - t0);
              if (JSON.stringify(d) !== JSON.stringify(r.digest)) throw new Error(`digest changed between runs: ${JSON.stringify(d)}`);
            }
          }
          r.median_ms = median(r.times_ms);
          r.min_ms = Math.min(...r.times_ms);
        } catch (err) {
          r.error = String(err && err.message || err);
        }
        log(`${w.Name} ${e.name}: ${r.error || r.times_ms.map((t) => t.toFixed(0)).join(' ') + ' ms'}`);
        result.results.push(r);
        row(r);
      }
      await e.teardown();
    }
  }
  status('done');
}

main().catch((err) => {
  (window.benchResult ||= {}).error = String(err && err.stack || err);
  log('error: ' + window.benchResult.error);
  status('failed');
}).finally(() => { window.benchDone = true; });
