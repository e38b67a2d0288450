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

// Your own data. A file picked in #add-files or dropped on #drop-zone, or text pasted in #paste, is handed as
// a File to the Go UI (window.joinlabAddTable, installed by wasm/app), which passes the File on to the
// engine's worker: the worker reads the bytes itself. Nothing reads them here, nothing uploads them, and the
// UI's render tree never holds them.
function addTable(file) {
  if (typeof window.joinlabAddTable !== "function") {
    console.warn("joinlab: the playground is still loading; try again in a moment");
    return;
  }
  window.joinlabAddTable(file);
}

document.addEventListener("change", (event) => {
  const input = event.target;
  if (!(input instanceof HTMLInputElement) || input.id !== "add-files") return;
  for (const file of input.files || []) addTable(file);
  input.value = ""; // choosing the same file again loads it again
});

// pasteInlineMax is the longest paste the box shows: a longer one becomes a table at once, never sitting in
// the page as text.
const pasteInlineMax = 64 << 10;

// pastedFile makes a File of pasted text, named after the format its first character suggests.
function pastedFile(text) {
  const csv = !/^\s*[{[]/.test(text);
  return new File([text], csv ? "pasted.csv" : "pasted.jsonl", { type: csv ? "text/csv" : "application/x-ndjson" });
}

document.addEventListener("click", (event) => {
  if (!(event.target instanceof Element) || event.target.id !== "paste-add") return;
  const area = document.getElementById("paste");
  if (!area || area.value.trim() === "") return;
  addTable(pastedFile(area.value));
  area.value = "";
});

document.addEventListener("paste", (event) => {
  if (!(event.target instanceof Element) || event.target.id !== "paste") return;
  const text = event.clipboardData ? event.clipboardData.getData("text/plain") : "";
  if (text.length <= pasteInlineMax) return;
  event.preventDefault();
  addTable(pastedFile(text));
});

function dropZone(event) {
  return event.target instanceof Element ? event.target.closest("#drop-zone") : null;
}

document.addEventListener("dragover", (event) => {
  const zone = dropZone(event);
  if (!zone) return;
  event.preventDefault();
  zone.classList.add("dragging");
});

document.addEventListener("dragleave", (event) => {
  const zone = dropZone(event);
  if (zone) zone.classList.remove("dragging");
});

document.addEventListener("drop", (event) => {
  const zone = dropZone(event);
  if (!zone) return;
  event.preventDefault();
  zone.classList.remove("dragging");
  for (const file of (event.dataTransfer && event.dataTransfer.files) || []) addTable(file);
});
