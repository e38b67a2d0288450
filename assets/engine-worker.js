// The engine's Web Worker: it loads engine.wasm (the Go engine, wasm/engine) and passes it the page's
// messages. Messages that arrive while the engine still loads wait in a queue, in order. A message is a
// request's JSON, or {json, blob} when a table's bytes come with it (a File or a paste as a Blob): the
// engine reads the Blob itself, so the bytes never pass through a string.
"use strict";

importScripts("wasm_exec.js");

const queue = [];
let receive = null;

self.onmessage = (e) => {
  const args = typeof e.data === "string" ? [e.data] : [e.data.json, e.data.blob];
  if (receive) receive(...args);
  else queue.push(args);
};

// post sends a message the way the engine does: {json, rows}.
function post(message) {
  self.postMessage({ json: JSON.stringify(message), rows: "" });
}

async function start() {
  const go = new Go();
  let result;
  try {
    result = await WebAssembly.instantiateStreaming(fetch("engine.wasm"), go.importObject);
  } catch (err) {
    // A server sending engine.wasm with a type other than application/wasm fails the streaming compile.
    const resp = await fetch("engine.wasm");
    if (!resp.ok) throw new Error(`fetch engine.wasm: ${resp.status} ${resp.statusText}`);
    result = await WebAssembly.instantiate(await resp.arrayBuffer(), go.importObject);
  }
  go.run(result.instance).then(() => {
    post({ type: "error", error: { message: "the engine stopped; reload the page" } });
  });
  // main registered joinlabEngine before it first blocked, which is before go.run returned.
  receive = self.joinlabEngine.receive;
  for (const args of queue.splice(0)) receive(...args);
}

start().catch((err) => {
  post({ type: "load_error", error: { message: String(err && err.message ? err.message : err) } });
});
