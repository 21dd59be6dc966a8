// A web page in headless Chromium whose MCP server (this polyfill's, inside the page) the bridge
// reaches over the tab transport: MCP-B envelopes on window.postMessage.
//
// Each bridge session gets a channel of its own (`mcp-bridge-<n>`): the page script the host
// injects opens it with `modelContext.connect({ transport: { type: 'tab', channelId } })`, so every
// channel is its own server session inside the page (one page session per MCP session), and
// closing it (`disconnect()`) cancels what still runs there. Messages go in with
// `page.evaluate` → `window.postMessage({ channel, type: 'mcp', direction: 'client-to-server',
// payload })` and come out through an exposed function the injected listener calls for every
// `server-to-client` envelope on a bridge channel.

import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT, DIST_DIR } from '../../scripts/lib/project.mjs';
import { startStaticServer } from '../../scripts/lib/static-server.mjs';
import { launchChromium } from '../../tests/page/lib/chromium.mjs';

const CHANNEL_PREFIX = 'mcp-bridge-';

// Runs in the page before any page script. Keeps to the page's public API: modelContext.connect
// and window.postMessage.
const INIT_SCRIPT = `(() => {
  const PREFIX = ${JSON.stringify(CHANNEL_PREFIX)};
  const sessions = new Map();
  window.addEventListener('message', (ev) => {
    if (ev.source !== window) return;
    const d = ev.data;
    if (!d || d.type !== 'mcp' || d.direction !== 'server-to-client') return;
    if (typeof d.channel !== 'string' || !d.channel.startsWith(PREFIX)) return;
    if (d.payload === null || typeof d.payload !== 'object') return; // control strings
    window.__mcpBridgeOut(d.channel, JSON.stringify(d.payload));
  });
  Object.defineProperty(window, '__mcpBridge', {
    value: Object.freeze({
      async open(channel) {
        const mc = document.modelContext || navigator.modelContext;
        if (!mc || typeof mc.connect !== 'function') throw new Error('this page has no modelContext.connect (is the polyfill loaded?)');
        sessions.set(channel, await mc.connect({ transport: { type: 'tab', channelId: channel } }));
      },
      close(channel) {
        const s = sessions.get(channel);
        sessions.delete(channel);
        if (s) s.disconnect();
      },
      send(channel, payload) {
        window.postMessage({ channel, type: 'mcp', direction: 'client-to-server', payload }, location.origin);
      },
    }),
  });
})();`;

/** Where a `--page` argument points: an http(s) URL, or a file served from a local server. */
function resolvePage(page, server) {
  if (/^https?:\/\//.test(page)) return page;
  const file = path.resolve(page);
  if (!fs.existsSync(file)) throw new Error(`--page ${page}: no such file`);
  const rel = path.relative(REPO_ROOT, file);
  if (!rel.startsWith('..') && !path.isAbsolute(rel)) return server.url('/' + rel.split(path.sep).join('/'));
  // Outside the repository: serve the file itself (its relative links will not resolve).
  const route = `/__bridge/${path.basename(file)}`;
  server.route(route, { body: fs.readFileSync(file), type: 'text/html; charset=utf-8' });
  return server.url(route);
}

/**
 * Opens `page` and waits until its modelContext is ready (and `window.mcpPageReady`, a promise a
 * page may define, has settled).
 *
 * @param {object} options
 * @param {string} options.page a file (served from the repository) or an http(s) URL
 * @param {boolean} [options.injectPolyfill] load dist/modelcontext.inline.iife.js (self-contained: an init script has no URL to find other files from) before the page's scripts
 * @param {(line: string) => void} [options.log] diagnostics (page errors, console, traffic)
 * @param {boolean} [options.trace] log every message in and out
 */
export async function openPageHost({ page: pageArg, injectPolyfill = false, log = () => {}, trace = false }) {
  const server = /^https?:\/\//.test(pageArg) ? null : await startStaticServer({ root: REPO_ROOT, port: 0 });
  const browser = await launchChromium();
  const channels = new Map();
  let nextChannel = 1;
  let closed = false;
  try {
    const context = await browser.newContext();
    const page = await context.newPage();
    page.on('pageerror', (e) => log(`page error: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning' || trace) log(`page console.${m.type()}: ${m.text()}`);
    });
    page.on('crash', () => log('the page crashed'));
    await page.exposeFunction('__mcpBridgeOut', (channel, text) => {
      const ch = channels.get(channel);
      if (trace) log(`← ${channel} ${text}`);
      if (!ch) return;
      let msg;
      try {
        msg = JSON.parse(text);
      } catch {
        return;
      }
      ch.onMessage(msg);
    });
    await page.addInitScript(INIT_SCRIPT);
    if (injectPolyfill) {
      const iife = path.join(DIST_DIR, 'modelcontext.inline.iife.js');
      if (!fs.existsSync(iife)) throw new Error('dist/modelcontext.inline.iife.js missing: run `make build` first');
      await page.addInitScript({ path: iife });
    }
    const url = resolvePage(pageArg, server);
    await page.goto(url);
    await page.waitForFunction(() => document.modelContext || navigator.modelContext, null, { timeout: 30_000 });
    await page.evaluate(() => window.mcpPageReady);

    return {
      url,
      page,
      /**
       * A new server session inside the page. `onMessage(msg)` gets every message the page
       * sends on it (parsed JSON-RPC).
       */
      async openSession(onMessage) {
        if (closed) throw new Error('the page host is closed');
        const channel = `${CHANNEL_PREFIX}${nextChannel++}`;
        const entry = { onMessage };
        channels.set(channel, entry);
        try {
          await page.evaluate((ch) => window.__mcpBridge.open(ch), channel);
        } catch (e) {
          channels.delete(channel);
          throw e;
        }
        let open = true;
        return {
          channel,
          /** Sends one JSON-RPC message (or batch) into the page. */
          async send(msg) {
            if (!open) return;
            if (trace) log(`→ ${channel} ${JSON.stringify(msg)}`);
            await page.evaluate(([ch, m]) => window.__mcpBridge.send(ch, m), [channel, msg]);
          },
          async close() {
            if (!open) return;
            open = false;
            channels.delete(channel);
            if (!closed) await page.evaluate((ch) => window.__mcpBridge.close(ch), channel).catch(() => {});
          },
        };
      },
      async close() {
        if (closed) return;
        closed = true;
        channels.clear();
        await browser.close().catch(() => {});
        if (server) await server.close();
      },
    };
  } catch (e) {
    await browser.close().catch(() => {});
    if (server) await server.close();
    throw e;
  }
}
