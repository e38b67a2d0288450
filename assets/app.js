// The playground page: it loads app.wasm (the Go engine), then runs the query in #query against the sources
// on the page and renders the rows, or the engine's error, when Run is clicked or Ctrl+Enter pressed.
"use strict";

const $ = (id) => document.getElementById(id);

const ui = {
  query: $("query"),
  run: $("run"),
  status: $("status"),
  error: $("error"),
  results: $("results"),
  rowcount: $("rowcount"),
};

let ready = false;
let running = false;

async function loadEngine() {
  const go = new Go();
  let result;
  try {
    result = await WebAssembly.instantiateStreaming(fetch("app.wasm"), go.importObject);
  } catch (err) {
    // A server that sends app.wasm with another type than application/wasm makes the streaming
    // compile fail; compiling from the bytes works with any type.
    console.warn("instantiateStreaming failed, compiling from bytes:", err);
    const resp = await fetch("app.wasm");
    if (!resp.ok) throw new Error(`fetch app.wasm: ${resp.status} ${resp.statusText}`);
    result = await WebAssembly.instantiate(await resp.arrayBuffer(), go.importObject);
  }
  // go.run resolves only when the Go program exits; main has registered joinlabRun by the time it
  // first blocks, which happens before go.run returns its promise.
  go.run(result.instance).then(() => {
    ready = false;
    ui.run.disabled = true;
    setStatus("The engine stopped; reload the page.", "bad");
  });
  if (typeof globalThis.joinlabRun !== "function") {
    throw new Error("app.wasm started but did not register joinlabRun");
  }
}

function setStatus(text, kind) {
  ui.status.textContent = text;
  ui.status.dataset.kind = kind || "";
}

function showError(message) {
  ui.error.textContent = message;
  ui.error.hidden = message === "";
}

function sources() {
  const out = {};
  for (const el of document.querySelectorAll(".source[data-source]")) {
    const name = el.dataset.source;
    out[name] = {
      format: $(`format-${name}`).value,
      data: $(`source-${name}`).value,
    };
  }
  return out;
}

// A column is numeric, and right-aligned with its header, when every value in it is a number or null.
function numericColumns(columns, rows) {
  return new Set(columns.filter((name) =>
    rows.some((row) => typeof row[name] === "number") &&
    rows.every((row) => row[name] === null || row[name] === undefined || typeof row[name] === "number")));
}

function renderTable(columns, rows) {
  const numeric = numericColumns(columns, rows);
  const head = document.createElement("tr");
  for (const name of columns) {
    const th = document.createElement("th");
    th.scope = "col";
    th.textContent = name;
    if (numeric.has(name)) th.className = "num";
    head.appendChild(th);
  }
  const body = document.createDocumentFragment();
  for (const row of rows) {
    const tr = document.createElement("tr");
    for (const name of columns) {
      const td = document.createElement("td");
      const v = row[name];
      if (v === null || v === undefined) {
        td.textContent = "null";
        td.className = "null";
      } else if (typeof v === "object") {
        td.textContent = JSON.stringify(v);
      } else {
        td.textContent = String(v);
        if (numeric.has(name)) td.className = "num";
      }
      tr.appendChild(td);
    }
    body.appendChild(tr);
  }
  ui.results.tHead.replaceChildren(head);
  ui.results.tBodies[0].replaceChildren(body);
}

function clearTable() {
  ui.results.tHead.replaceChildren();
  ui.results.tBodies[0].replaceChildren();
}

function plural(n, word) {
  return `${n.toLocaleString("en")} ${word}${n === 1 ? "" : "s"}`;
}

async function runQuery() {
  if (!ready || running) return;
  running = true;
  ui.run.disabled = true;
  setStatus("Running…", "busy");
  showError("");
  // Let the browser paint "Running…" before the engine takes the thread.
  await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
  const started = performance.now();
  try {
    const res = await globalThis.joinlabRun(ui.query.value, JSON.stringify(sources()));
    const ms = Math.round(performance.now() - started);
    if (res.error) {
      clearTable();
      ui.rowcount.textContent = "";
      showError(res.error);
      setStatus(`Query failed (${ms} ms).`, "bad");
      return;
    }
    const rows = res.rows || [];
    renderTable(res.columns || [], rows);
    ui.rowcount.textContent = res.truncated
      ? `${rows.length.toLocaleString("en")} of ${plural(res.total, "row")} shown`
      : plural(res.total, "row");
    setStatus(`Done in ${ms} ms.`, "good");
  } catch (err) {
    clearTable();
    ui.rowcount.textContent = "";
    showError(String(err && err.message ? err.message : err));
    setStatus("The engine failed.", "bad");
  } finally {
    running = false;
    ui.run.disabled = !ready;
  }
}

ui.run.addEventListener("click", runQuery);
document.addEventListener("keydown", (e) => {
  if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
    e.preventDefault();
    runQuery();
  }
});

loadEngine().then(
  () => {
    ready = true;
    ui.run.disabled = false;
    setStatus("Ready.", "good");
  },
  (err) => {
    showError(`Could not load the engine: ${err && err.message ? err.message : err}`);
    setStatus("Failed to load.", "bad");
  },
);
