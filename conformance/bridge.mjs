#!/usr/bin/env node
// The page bridge: serves a web page (with this polyfill) in headless Chromium and exposes the MCP
// server inside it on this machine, so desktop MCP clients and test suites can reach tools that
// live in a web page.
//
//   node conformance/bridge.mjs --page conformance/fixtures.html --http 3001
//       → Streamable HTTP at http://127.0.0.1:3001/mcp (both eras; see lib/streamable-http.mjs)
//   node conformance/bridge.mjs --page conformance/fixtures.html --stdio
//       → the MCP stdio transport: one JSON-RPC message per line on stdin/stdout
//
// Options:
//   --page <file|url>    the page: a file (served from the repository over http://127.0.0.1, a
//                        secure context) or an http(s) URL
//   --http <port>        listen on 127.0.0.1:<port> (0 picks one; the URL is printed on stderr)
//   --host <address>     listen address (default 127.0.0.1; loopback addresses only)
//   --stdio              speak MCP on stdin/stdout instead
//   --inject-polyfill    load dist/modelcontext.inline.iife.js (self-contained) into the page before its own scripts
//   --verbose            log page errors and console; --trace also logs every message
//
// Inside the page the bridge keeps to public API: each MCP session is a channel of its own opened
// with modelContext.connect({ transport: { type: 'tab', channelId } }) and fed MCP-B envelopes
// through window.postMessage (lib/page-host.mjs).

import { pathToFileURL } from 'node:url';
import readline from 'node:readline';
import { openPageHost } from './lib/page-host.mjs';
import { startStreamableHttp } from './lib/streamable-http.mjs';

/**
 * Starts a bridge. Resolves to `{ url (HTTP only), host, close() }`.
 * @param {object} options
 * @param {string} options.page
 * @param {number} [options.http] port for Streamable HTTP
 * @param {string} [options.hostname]
 * @param {boolean} [options.stdio]
 * @param {boolean} [options.injectPolyfill]
 * @param {(line: string) => void} [options.log]
 * @param {boolean} [options.trace]
 */
export async function startBridge({ page, http, hostname = '127.0.0.1', stdio = false, injectPolyfill = false, log = () => {}, trace = false }) {
  const host = await openPageHost({ page, injectPolyfill, log, trace });
  try {
    if (stdio) {
      const done = serveStdio(host, log);
      return { host, done, close: () => host.close() };
    }
    const transport = await startStreamableHttp({ host, port: http ?? 0, hostname, log });
    return {
      host,
      url: transport.url,
      transport,
      async close() {
        await transport.close();
        await host.close();
      },
    };
  } catch (e) {
    await host.close();
    throw e;
  }
}

/** stdin → one page session → stdout, a message per line. Resolves when stdin ends. */
function serveStdio(host, log) {
  return new Promise((resolve, reject) => {
    host
      .openSession((msg) => process.stdout.write(JSON.stringify(msg) + '\n'))
      .then((session) => {
        const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
        let queue = Promise.resolve();
        rl.on('line', (line) => {
          if (!line.trim()) return;
          let msg;
          try {
            msg = JSON.parse(line);
          } catch (e) {
            process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: `Parse error: ${e.message}` } }) + '\n');
            return;
          }
          queue = queue.then(() => session.send(msg)).catch((e) => log(`stdio: ${e.message}`));
        });
        rl.on('close', () => {
          // Let answers to the last requests come back before closing.
          queue.then(() => new Promise((r) => setTimeout(r, 200))).then(() => session.close()).then(resolve, resolve);
        });
      }, reject);
  });
}

function parseArgs(argv) {
  const o = { page: undefined, http: undefined, hostname: '127.0.0.1', stdio: false, injectPolyfill: false, verbose: false, trace: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--page') o.page = next();
    else if (a === '--http') o.http = Number(next());
    else if (a === '--host') o.hostname = next();
    else if (a === '--stdio') o.stdio = true;
    else if (a === '--inject-polyfill') o.injectPolyfill = true;
    else if (a === '--verbose') o.verbose = true;
    else if (a === '--trace') o.verbose = o.trace = true;
    else if (a === '-h' || a === '--help') o.help = true;
    else throw new Error(`unknown option ${a}`);
  }
  return o;
}

const USAGE = 'usage: node conformance/bridge.mjs --page <file|url> (--http <port> | --stdio) [--host 127.0.0.1] [--inject-polyfill] [--verbose|--trace]';

async function main() {
  let o;
  try {
    o = parseArgs(process.argv.slice(2));
  } catch (e) {
    console.error(`${e.message}\n${USAGE}`);
    return 2;
  }
  if (o.help) {
    console.error(USAGE);
    return 0;
  }
  if (!o.page || (o.http === undefined) === !o.stdio || (o.http !== undefined && !(o.http >= 0 && o.http < 65536))) {
    console.error(USAGE);
    return 2;
  }
  if (!['127.0.0.1', 'localhost', '::1'].includes(o.hostname)) {
    console.error(`--host ${o.hostname}: the bridge listens on loopback addresses only`);
    return 2;
  }
  const log = o.verbose ? (line) => process.stderr.write(`[bridge] ${line}\n`) : (line) => line.startsWith('page error') && process.stderr.write(`[bridge] ${line}\n`);
  const bridge = await startBridge({ ...o, log });
  const stop = async () => {
    setTimeout(() => process.exit(0), 3000).unref();
    await bridge.close().catch(() => {});
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  if (o.stdio) {
    await bridge.done;
    await bridge.close();
    return 0;
  }
  process.stderr.write(`[bridge] ${bridge.host.url} → MCP Streamable HTTP at ${bridge.url}\n`);
  return new Promise(() => {}); // serve until killed
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().then(
    (code) => process.exit(code),
    (e) => {
      console.error(`[bridge] ${e.stack || e.message}`);
      process.exit(1);
    },
  );
}
