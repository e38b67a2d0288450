// The page's loader: it downloads app.wasm (the Vugu UI, wasm/app) with a progress bar and starts it.
// The UI then starts the engine in a Web Worker itself (engine-worker.js).
"use strict";

// Vugu's renderer installs its DOM helpers by passing their source to window.eval, which the site's
// Content-Security-Policy forbids. vugu-render.js, copied from the same Vugu module at build, has already
// installed them, and that source begins by returning when they exist: so the one eval Vugu makes is
// answered here, and any other eval is refused as the policy would refuse it.
const vuguPrelude = "(function(){if(window.vuguRender)return;";
window.eval = function (src) {
  if (typeof src === "string" && src.startsWith(vuguPrelude) && typeof window.vuguRender === "function") {
    return undefined;
  }
  throw new EvalError("eval is disabled on this page");
};

const loadingText = document.getElementById("loading-text");
const loadingBar = document.getElementById("loading-progress");

// fetchWithProgress reads a response body, updating the progress bar as bytes arrive. A compressed
// response has no length the page can compare with, so the bar then stays indeterminate.
async function fetchWithProgress(url) {
  const resp = await fetch(url);
  if (!resp.ok) throw new Error(`fetch ${url}: ${resp.status} ${resp.statusText}`);
  const encoded = resp.headers.get("Content-Encoding");
  const total = encoded ? 0 : Number(resp.headers.get("Content-Length")) || 0;
  if (!total) loadingBar.removeAttribute("value");
  const reader = resp.body.getReader();
  const chunks = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    received += value.length;
    if (total) loadingBar.value = received / total;
    loadingText.textContent = `Loading the playground… ${(received / 1048576).toFixed(1)} MiB`;
  }
  const bytes = new Uint8Array(received);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.length;
  }
  return bytes;
}

async function start() {
  const started = performance.now();
  const bytes = await fetchWithProgress("app.wasm");
  loadingText.textContent = "Starting the playground…";
  const go = new Go();
  const { instance } = await WebAssembly.instantiate(bytes, go.importObject);
  window.joinlabLoad = { bytes: bytes.length, ms: Math.round(performance.now() - started) };
  go.run(instance);
}

start().catch((err) => {
  loadingText.textContent = `The playground could not load: ${err && err.message ? err.message : err}`;
  loadingText.dataset.kind = "bad";
});

// Your own data from disk: a file chosen in a table's file input is read here, in the page (never uploaded),
// and handed to the UI as if typed: the text goes into the table's textarea with an input event, and a .csv
// name sets the format picker with a change event, so the Go UI's handlers see exactly what typing would give.
document.addEventListener("change", async (event) => {
  const input = event.target;
  if (!(input instanceof HTMLInputElement) || input.type !== "file" || !input.dataset.table) return;
  const file = input.files && input.files[0];
  if (!file) return;
  const table = input.dataset.table;
  const area = document.getElementById("source-" + table);
  const format = document.getElementById("format-" + table);
  if (!area) return;
  let text;
  try {
    text = await file.text();
  } catch (err) {
    console.warn(`joinlab: could not read ${file.name}: ${err}`);
    return;
  }
  if (format) {
    const csv = /\.csv$/i.test(file.name) || file.type === "text/csv";
    const wanted = csv ? "csv" : "jsonl";
    if (format.value !== wanted) {
      format.value = wanted;
      format.dispatchEvent(new Event("change", { bubbles: true }));
    }
  }
  area.value = text;
  area.dispatchEvent(new Event("input", { bubbles: true }));
  input.value = ""; // choosing the same file again reloads it
});
