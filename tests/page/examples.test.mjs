// The example pages under examples/ (worker/, iframe/, two-tabs/, extension/), opened in headless
// Chromium as a person would open them and driven end to end through their own UI; the extension
// example twice: its scripts against a stand-in `chrome` in the page, and loaded unpacked for real.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { withPage, getServer, requireDist, REPO_ROOT, DIST_DIR, CHROMIUM_ARGS, CHROMIUM_PATH } from './harness.mjs';

requireDist();

test('the new example pages link to files that exist', () =>
  withPage(async ({ page, goto, server }) => {
    for (const p of ['/examples/worker/', '/examples/iframe/', '/examples/two-tabs/', '/examples/two-tabs/client.html', '/examples/extension/']) {
      await goto(p);
      const links = await page.$$eval('a[href]', (a) => a.map((x) => x.href));
      for (const href of links.filter((h) => h.startsWith(server.origin))) {
        assert.equal((await fetch(href)).status, 200, `${p} → ${href}`);
      }
    }
  }));

test('examples/worker/: the page lists the worker\'s tool and calls it through McpClient', () =>
  withPage(async ({ page }) => {
    await page.waitForFunction(() => window.workerExample?.ready);
    const tools = await page.$$eval('#tools li', (lis) => lis.map((li) => li.querySelector('code')?.textContent));
    assert.deepEqual(tools, ['count_primes']);
    assert.equal(await page.evaluate(() => window.workerExample.client.serverInfo.name), 'prime-worker');
    await page.fill('#below', '100');
    await page.click('#call-form button');
    await page.waitForFunction(() => document.getElementById('result').textContent.includes('primes'));
    const result = JSON.parse(await page.textContent('#result'));
    assert.equal(result.below, 100);
    assert.equal(result.primes, 25);
    assert.equal(result.inWorker, true);
    // An argument the tool's schema rejects never reaches the worker's handler.
    await page.fill('#below', '1');
    await page.click('#call-form button');
    await page.waitForFunction(() => document.getElementById('result').textContent.startsWith('Error'));
    assert.match(await page.textContent('#result'), /below/);
  }, { path: '/examples/worker/' }));

test('examples/iframe/: the host lists and calls the tools of an app embedded from the other origin', () =>
  withPage(async ({ page, server }) => {
    await page.waitForFunction(() => window.iframeExample?.ready);
    const app = page.frames().find((f) => f.url().startsWith(`${server.origin}/examples/iframe/app.html`));
    assert.ok(app, `the app is loaded from ${server.origin} (the host is on ${server.altOrigin})`);
    const options = (await page.$$eval('#tool option', (os) => os.map((o) => o.value))).sort();
    assert.deepEqual(options, ['add_to_count', 'get_count']);
    assert.match(await page.textContent('#transcript'), /^Connected to counter-app on http:\/\/127\.0\.0\.1:\d+\./);

    await page.selectOption('#tool', 'add_to_count');
    await page.fill('#args', '{"by": 5}');
    await page.click('#call-form button');
    await page.waitForFunction(() => document.getElementById('transcript').textContent.includes('add_to_count {"by":5} →'));
    assert.equal(await app.textContent('#count'), '5', 'the call changed the app\'s own state');

    await page.selectOption('#tool', 'get_count');
    await page.fill('#args', '{}');
    await page.click('#call-form button');
    await page.waitForFunction(() => document.getElementById('transcript').textContent.includes('get_count {} →'));
    assert.match(await page.textContent('#transcript'), /tools\/call get_count \{\} → \{"count":5\}/);

    // The app trusts only the host's origin: a page on its own origin embedding it gets nothing.
    const r = await page.evaluate(async (src) => {
      const { McpClient, IframeParentClientTransport } = await import('/dist/modelcontext.js');
      const iframe = Object.assign(document.createElement('iframe'), { src });
      document.body.append(iframe);
      const other = new McpClient(new IframeParentClientTransport({ iframe, targetOrigin: new URL(src).origin, connectionTimeout: 1500 }));
      return other.connect().then(() => 'connected', (e) => `${e.name}: ${e.message}`);
    }, server.url('/examples/iframe/app.html', { alt: true }));
    assert.match(r, /^TransportError: .*within 1500 ms/);
  }, { path: '/examples/iframe/', alt: true }));

test('examples/two-tabs/: client.html calls the tools of index.html, another page, over a BroadcastChannel', () =>
  withPage(async ({ page, context, server }) => {
    await page.waitForFunction(() => window.twoTabsServer?.ready);
    const caller = await context.newPage();
    await caller.goto(server.url('/examples/two-tabs/client.html'));
    await caller.waitForFunction(() => window.twoTabsClient?.ready);
    assert.equal(await caller.textContent('#transcript'), 'Connected to notes-tab; its tools: add_note, list_notes.');

    await caller.fill('#text', 'Buy milk');
    await caller.click('#add-form button');
    await caller.waitForFunction(() => document.getElementById('transcript').textContent.includes('add_note {"text":"Buy milk"} → Added note #1.'));
    assert.deepEqual(await page.$$eval('#notes li', (lis) => lis.map((li) => li.textContent)), ['Buy milk']);

    await caller.click('#list');
    await caller.waitForFunction(() => document.getElementById('transcript').textContent.includes('list_notes →'));
    assert.match(await caller.textContent('#transcript'), /list_notes → \{"notes":\["Buy milk"\]\}/);
    await caller.close();
  }, { path: '/examples/two-tabs/' }));

test('examples/two-tabs/: client.html opened first waits for the tools tab and connects once it is open', () =>
  withPage(async ({ page, context, server }) => {
    await page.waitForFunction(() => document.getElementById('transcript').textContent.startsWith('No tab answered'), null, { timeout: 10_000 });
    const tools = await context.newPage();
    await tools.goto(server.url('/examples/two-tabs/'));
    await page.waitForFunction(() => window.twoTabsClient?.ready, null, { timeout: 10_000 });
    assert.equal(await page.textContent('#transcript'), 'Connected to notes-tab; its tools: add_note, list_notes.');
    await tools.close();
  }, { path: '/examples/two-tabs/client.html', timeout: 20_000 }));

// The extension can't be loaded here, so its two scripts run in the page against a stand-in
// `chrome`: chrome.runtime.connect() returns one end of an in-memory Port pair and hands the other
// end to the background's onConnect listener; chrome.action records badges and can be "clicked".
test('examples/extension/: the page serves its tools to the extension\'s content script and background (stand-in chrome.runtime.Port)', () =>
  withPage(async ({ page, consoleMessages }) => {
    await page.waitForFunction(() => window.extensionExample?.ready);
    assert.equal(await page.textContent('#status'), 'No extension connected.');
    const r = await page.evaluate(async () => {
      const listeners = () => {
        const fs = new Set();
        return { addListener: (f) => fs.add(f), removeListener: (f) => fs.delete(f), fire: (...a) => [...fs].forEach((f) => f(...a)) };
      };
      function portPair(name) {
        const a = { name, onMessage: listeners(), onDisconnect: listeners() };
        const b = { name, onMessage: listeners(), onDisconnect: listeners(), sender: { tab: { id: 7 } } };
        let open = true;
        a.postMessage = (m) => open && queueMicrotask(() => b.onMessage.fire(structuredClone(m)));
        b.postMessage = (m) => open && queueMicrotask(() => a.onMessage.fire(structuredClone(m)));
        a.disconnect = () => { if (open) { open = false; b.onDisconnect.fire(); } };
        b.disconnect = () => { if (open) { open = false; a.onDisconnect.fire(); } };
        return [a, b];
      }
      const badges = [];
      const onConnect = listeners();
      const onClicked = listeners();
      const chrome = {
        runtime: {
          onConnect,
          connect: ({ name }) => {
            const [contentEnd, backgroundEnd] = portPair(name);
            window.backgroundEnd = backgroundEnd;
            queueMicrotask(() => onConnect.fire(backgroundEnd));
            return contentEnd;
          },
        },
        action: { onClicked, setBadgeText: async (details) => { badges.push(details); } },
      };
      const run = async (file, ...names) => {
        const source = await (await fetch(`/examples/extension/extension/${file}`)).text();
        return new Function(...names, source);
      };
      // importScripts: the polyfill is already on the page.
      (await run('background.js', 'chrome', 'importScripts'))(chrome, () => {});
      (await run('content.js', 'chrome'))(chrome);
      const until = async (f) => { while (!f()) await new Promise((res) => setTimeout(res, 20)); };
      await until(() => badges.length);
      onClicked.fire({ id: 7 });
      await until(() => document.getElementById('note').value.includes('Hello from the extension'));
      return { badges, note: document.getElementById('note').value };
    });
    assert.deepEqual(r.badges, [{ tabId: 7, text: '2' }]);
    assert.match(r.note, /^A note the extension can read and add to\.\nHello from the extension at /);
    assert.equal(await page.textContent('#status'), 'An extension is connected.');
    await page.waitForFunction(() => document.querySelectorAll('#log li').length === 2);
    assert.deepEqual(await page.$$eval('#log li', (lis) => lis.map((li) => li.textContent.replace(/ at .*/, ''))), [
      'append_note "Hello from the extension',
      'read_note',
    ]);
    const logged = consoleMessages.map((m) => m.text);
    assert.ok(logged.includes('tab 7: extension-example-page has 2 tools: append_note, read_note'), logged.join('\n'));
    assert.ok(logged.some((t) => /^tab 7: the note is now:\nA note the extension/.test(t)), logged.join('\n'));
    // The background going away (extension reloaded, service worker stopped) reaches the page.
    await page.evaluate(() => window.backgroundEnd.disconnect());
    await page.waitForFunction(() => document.getElementById('status').textContent.startsWith('The extension disconnected'));
  }, { path: '/examples/extension/' }));

// And the real thing: Chromium's new headless mode loads unpacked extensions. A copy of
// examples/extension/extension/ with dist/modelcontext.inline.iife.js beside background.js, as its
// instructions say; the background's own McpClient (its `clients` map) calls the page's tools.
test('examples/extension/: the real MV3 extension, loaded unpacked, connects to the page and calls its tools', async (t) => {
  const server = await getServer();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'modelcontext-example-extension-'));
  fs.cpSync(path.join(REPO_ROOT, 'examples/extension/extension'), dir, { recursive: true });
  fs.copyFileSync(path.join(DIST_DIR, 'modelcontext.inline.iife.js'), path.join(dir, 'modelcontext.inline.iife.js'));
  const context = await chromium.launchPersistentContext('', {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [...CHROMIUM_ARGS, `--disable-extensions-except=${dir}`, `--load-extension=${dir}`],
    timeout: 60_000,
  });
  try {
    const worker = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker', { timeout: 10_000 }).catch(() => null));
    if (!worker) return t.skip('this Chromium did not load the unpacked extension (--load-extension)');
    const page = await context.newPage();
    const pageErrors = [];
    page.on('pageerror', (e) => pageErrors.push(e));
    await page.goto(server.url('/examples/extension/', { alt: true }));
    const r = await worker.evaluate(async () => {
      while (!clients.size) await new Promise((res) => setTimeout(res, 20));
      const [[tabId, client]] = [...clients];
      const appended = await client.callTool('append_note', { text: 'Hello from the real extension' });
      const note = await client.callTool('read_note');
      return { server: client.serverInfo.name, badge: await chrome.action.getBadgeText({ tabId }), appended: appended.content[0].text, note: note.content[0].text };
    });
    assert.deepEqual(r, {
      server: 'extension-example-page',
      badge: '2',
      appended: 'Appended.',
      note: 'A note the extension can read and add to.\nHello from the real extension',
    });
    assert.equal(await page.inputValue('#note'), r.note);
    assert.equal(await page.textContent('#status'), 'An extension is connected.');
    assert.deepEqual(pageErrors, []);
    // Closing the tab disconnects the port; the background forgets its client.
    await page.close();
    assert.equal(await worker.evaluate(async () => {
      for (let i = 0; i < 100 && clients.size; i++) await new Promise((res) => setTimeout(res, 20));
      return clients.size;
    }), 0);
  } finally {
    await context.close().catch(() => {});
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
