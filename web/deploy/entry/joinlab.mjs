// The joinlab Worker's main module (wrangler.jsonc names it): a thin guard in front of the site's static files
// and of syumai/workers' glue (worker.mjs, which runs app.wasm for each request), and the Durable Object class
// of the link rate limit. web/deploy copies it into the build beside security-headers.mjs, which it writes
// from web/bundle's headers.
//
// wrangler.jsonc sets assets.run_worker_first, so every request comes here first, static files included:
// otherwise Workers Static Assets would serve "/?q=%" as "/" before any check. Static files are then fetched
// from the ASSETS binding here, in JavaScript, without starting Go.
import { DurableObject } from "cloudflare:workers";
import goWorker from "./worker.mjs";
import securityHeaders from "./security-headers.mjs";

// A "%" not followed by two hexadecimal digits. The URL parser of workerd keeps such a "%" as it is; Go's
// url.Parse, which syumai/workers runs on every request URL, refuses it, and the refusal would surface as an
// uncaught rejection: workerd's 500 with a stack trace and no security headers.
const badEscape = /%(?![0-9A-Fa-f]{2})/;

// errorAnswer is the Go handler's error answer: {"error": message}, with the security headers, never cached.
function errorAnswer(status, message) {
  const headers = new Headers(securityHeaders);
  headers.set("Content-Type", "application/json");
  headers.set("Cache-Control", "no-store");
  return new Response(JSON.stringify({ error: message }) + "\n", { status, headers });
}

// goPaths are the Go handler's own: the share API and short links. The site has no files under them.
const goPaths = /^\/(api|s)(\/|$)/;

export default {
  async fetch(request, env, ctx) {
    // The fragment never reaches a server, so the URL's path and query are all there is to check.
    if (badEscape.test(request.url)) {
      return errorAnswer(400, "malformed percent escape in the URL");
    }
    const { pathname } = new URL(request.url);
    if ((request.method === "GET" || request.method === "HEAD") && !goPaths.test(pathname)) {
      const asset = await env.ASSETS.fetch(request);
      // A miss goes on to Go, whose 404 is the handler's JSON error, as before run_worker_first.
      if (asset.status !== 404) {
        return asset;
      }
    }
    try {
      return await goWorker.fetch(request, env, ctx);
    } catch (err) {
      // The log, never the client, gets the stack.
      console.error("joinlab worker:", err);
      return errorAnswer(500, "the Worker failed; try again");
    }
  },
};

// LinkLimiter is one rate counter (wasm/worker names one per client and window; web/linkstore's
// DurableLimiter calls it). POST /take?limit=N&expires=MS adds one to the count unless it has reached N and
// answers {"taken": bool}; at MS (Unix milliseconds, from the Take that created the counter) the object
// deletes its storage.
//
// Atomicity: a Durable Object handles its requests one event at a time on one thread, and the read, the check
// and the write below are synchronous SQLite calls with no await between them, so no other request can see or
// change the count in between. That holds in wrangler dev as on Cloudflare.
export class LinkLimiter extends DurableObject {
  async fetch(request) {
    const params = new URL(request.url).searchParams;
    const limit = Number(params.get("limit"));
    const expires = Number(params.get("expires"));
    if (request.method !== "POST" || !Number.isSafeInteger(limit) || !Number.isSafeInteger(expires)) {
      return Response.json({ error: "want POST /take?limit=N&expires=MS" }, { status: 400 });
    }
    const sql = this.ctx.storage.sql;
    sql.exec("CREATE TABLE IF NOT EXISTS counter (id INTEGER PRIMARY KEY CHECK (id = 0), n INTEGER NOT NULL)");
    const rows = sql.exec("SELECT n FROM counter WHERE id = 0").toArray();
    const n = rows.length ? rows[0].n : 0;
    const taken = n < limit;
    if (taken) {
      sql.exec("INSERT INTO counter (id, n) VALUES (0, ?) ON CONFLICT (id) DO UPDATE SET n = excluded.n", n + 1);
    }
    if (rows.length === 0) {
      // A new counter (or a table just made for a refusal): end it when its ttl does.
      await this.ctx.storage.setAlarm(expires);
    }
    return Response.json({ taken });
  }

  // alarm ends the counter: with its storage gone, the object no longer exists.
  async alarm() {
    await this.ctx.storage.deleteAll();
  }
}
