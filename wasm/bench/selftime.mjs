// Self time by function in a V8 CPU profile (.cpuprofile: `BENCH_CPUPROFILE=FILE go run mage.go bench`, or
// node --cpu-prof), counting only samples under a frame whose name contains FOCUS (default: all):
//
//	node wasm/bench/selftime.mjs FILE [TOP] [FOCUS]
//
// Under the bench page, FOCUS=runKQL keeps the timed queries and leaves out data generation and the untimed
// collections before each run.
import { readFileSync } from 'node:fs';

const [file, topArg, focus] = process.argv.slice(2);
if (!file) {
  console.error('usage: node wasm/bench/selftime.mjs FILE [TOP] [FOCUS]');
  process.exit(2);
}
const top = Number(topArg || 30);
const p = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of p.nodes) for (const c of n.children || []) parent.set(c, n.id);
const under = new Map();
function isUnder(id) {
  if (!focus) return true;
  if (under.has(id)) return under.get(id);
  const n = byId.get(id);
  const r = n.callFrame.functionName.includes(focus) || (parent.has(id) && isUnder(parent.get(id)));
  under.set(id, r);
  return r;
}
const self = new Map();
let total = 0;
p.samples.forEach((id, i) => {
  if (!isUnder(id)) return;
  const name = byId.get(id).callFrame.functionName || '(anonymous)';
  const dt = p.timeDeltas[i] || 0;
  total += dt;
  self.set(name, (self.get(name) || 0) + dt);
});
console.log(`${(total / 1000).toFixed(0)} ms sampled${focus ? ` under ${focus}` : ''}`);
for (const [name, t] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top)) {
  console.log(`${(t / 1000).toFixed(0).padStart(7)} ms ${((100 * t) / total).toFixed(1).padStart(5)}%  ${name}`);
}
