// The TypeScript declarations in typings/: `tsc -p typings` (strict) must accept
// typings/test/usage.ts, whose `@ts-expect-error` lines are misuse the declarations must reject;
// and a file of deliberate type errors must fail, so this check can fail at all. The package
// name resolves through polyfill/package.json's exports (bundler and nodenext resolution), and
// the declared classes, members and records are compared with the built polyfill's.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../../scripts/lib/project.mjs';
// Static, so the harness's browser and server close after the whole file (not after the first page test).
import { withPage, requireDist } from './harness.mjs';

const TSC = path.join(REPO_ROOT, 'node_modules', '.bin', 'tsc');
const TYPINGS = path.join(REPO_ROOT, 'typings');

function tsc(args, cwd = REPO_ROOT) {
  if (!fs.existsSync(TSC)) throw new Error(`${TSC} missing: run \`make deps\` (npm ci)`);
  const r = spawnSync(TSC, args, { cwd, encoding: 'utf8', timeout: 120_000 });
  if (r.error) throw r.error;
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

test('tsc: the TypeScript in node_modules is the pinned one', () => {
  const r = tsc(['--version']);
  assert.equal(r.status, 0, r.out);
  const pinned = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')).devDependencies.typescript;
  assert.match(r.out, new RegExp(`Version ${pinned.replace(/\./g, '\\.')}`));
});

test('tsc --strict accepts typings/ and typings/test/usage.ts (misuse lines are errors)', () => {
  const r = tsc(['-p', TYPINGS]);
  assert.equal(r.status, 0, `tsc -p typings failed:\n${r.out}`);
});

test('tsc rejects a file with deliberate type errors, each at its line', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-typings-'));
  try {
    const lines = [
      `/// <reference path=${JSON.stringify(path.join(TYPINGS, 'index.d.ts'))} />`,
      `export async function f() {`,
      `  await navigator.modelContext.registerTool({ name: 'x', description: 'd' });`, // 3: no execute
      `  const s: string = await document.modelContext.registerTool({ name: 'x', description: 'd', execute: () => '' });`, // 4
      `  navigator.modelContext.notify('tools/list');`, // 5
      `  navigator.modelContext.registerTool('x', { description: 'no handler' });`, // 6
      `  new ModelContext();`, // 7
      `  return s;`,
      `}`,
    ];
    const file = path.join(dir, 'broken.ts');
    fs.writeFileSync(file, lines.join('\n'));
    const r = tsc(['--noEmit', '--strict', '--target', 'es2022', '--lib', 'es2022,dom', '--types', '', file], dir);
    assert.notEqual(r.status, 0, `tsc accepted a broken file:\n${r.out}`);
    for (const line of [3, 4, 5, 6, 7]) {
      assert.match(r.out, new RegExp(`broken\\.ts\\(${line},\\d+\\): error TS\\d+`), `no error reported on line ${line}:\n${r.out}`);
    }
    assert.equal((r.out.match(/error TS\d+/g) || []).length, 5, r.out);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('typings/index.d.ts is a module exporting the types as well as declaring them globally', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-typings-'));
  try {
    const file = path.join(dir, 'imports.ts');
    const index = path.join(TYPINGS, 'index.js').replace(/\\/g, '/');
    fs.writeFileSync(
      file,
      [
        `import type { ModelContextTool, ToolDefinition, ModelContextSession } from ${JSON.stringify(index)};`,
        `const t: ModelContextTool = { name: 'a', description: 'b', execute: () => 'c' };`,
        `const d: ToolDefinition = { handler: () => 'c' };`,
        `export async function f(): Promise<ModelContextSession> {`,
        `  await document.modelContext.registerTool(t);`,
        `  document.modelContext.registerTool('b', d);`,
        `  return document.modelContext.connect();`,
        `}`,
      ].join('\n'),
    );
    const r = tsc(['--noEmit', '--strict', '--target', 'es2022', '--module', 'esnext', '--moduleResolution', 'bundler', '--lib', 'es2022,dom', '--types', '', file], dir);
    assert.equal(r.status, 0, r.out);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// A consumer's project: node_modules/modelcontext-polyfill staged as the package would be
// (polyfill/package.json and typings/**/*.d.ts), so the import goes through the exports map.
function stageConsumer() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-typings-pkg-'));
  const pkgDir = path.join(dir, 'node_modules', 'modelcontext-polyfill');
  fs.mkdirSync(pkgDir, { recursive: true });
  fs.copyFileSync(path.join(REPO_ROOT, 'polyfill', 'package.json'), path.join(pkgDir, 'package.json'));
  const copyDts = (from, to) => {
    for (const e of fs.readdirSync(from, { withFileTypes: true })) {
      const src = path.join(from, e.name);
      if (e.isDirectory()) copyDts(src, path.join(to, e.name));
      else if (e.name.endsWith('.d.ts')) {
        fs.mkdirSync(to, { recursive: true });
        fs.copyFileSync(src, path.join(to, e.name));
      }
    }
  };
  copyDts(TYPINGS, path.join(pkgDir, 'typings'));
  return dir;
}

const RESOLUTIONS = [
  ['bundler', 'esnext'],
  ['nodenext', 'nodenext'],
];

function tscConsumer(dir, file, [resolution, mod], extra = []) {
  return tsc(
    ['--noEmit', '--strict', '--target', 'es2022', '--module', mod, '--moduleResolution', resolution, '--lib', 'es2022,dom', '--types', '', ...extra, file],
    dir,
  );
}

/**
 * Writes `lines` as `name` into a staged consumer project with `links` (packages or scopes from
 * node_modules) beside the package, and type-checks it under each module resolution.
 */
function checkConsumer(name, links, lines) {
  const dir = stageConsumer();
  try {
    for (const link of links) {
      fs.symlinkSync(path.join(REPO_ROOT, 'node_modules', link), path.join(dir, 'node_modules', link), 'junction');
    }
    const file = path.join(dir, name);
    fs.writeFileSync(file, lines.join('\n'));
    for (const res of RESOLUTIONS) {
      const r = tscConsumer(dir, file, res, ['--skipLibCheck']);
      assert.equal(r.status, 0, `moduleResolution ${res[0]}:\n${r.out}`);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test("import { McpClient, TabClientTransport, … } from 'modelcontext-polyfill' type-checks (bundler and nodenext)", () => {
  const dir = stageConsumer();
  try {
    const file = path.join(dir, 'consumer.mts');
    fs.writeFileSync(
      file,
      [
        `import 'modelcontext-polyfill';`,
        `import { McpClient, TabClientTransport, PostMessageServerTransport, RequestTimeoutError, TransportError, McpError } from 'modelcontext-polyfill';`,
        `import type { ModelContextPolyfillRecord, McpClientOptions, ModelContextTool } from 'modelcontext-polyfill';`,
        `export async function f(worker: Worker): Promise<number> {`,
        `  const options: McpClientOptions = { timeoutMs: 1000, reconnect: { scheduler: (reconnect, delay) => { const id = setTimeout(reconnect, delay); return () => clearTimeout(id); } } };`,
        `  const client = new McpClient(new TabClientTransport({ channelId: 'c' }), options);`,
        `  const { serverInfo } = await client.connect();`,
        `  await document.modelContext.connect({ transport: new PostMessageServerTransport(worker) });`,
        `  const tool: ModelContextTool = { name: 't', description: serverInfo.name, execute: () => '' };`,
        `  await navigator.modelContext.registerTool(tool);`,
        `  const e = await client.callTool('t', {}, { timeoutMs: 5 }).catch((e: unknown) => e);`,
        `  if (e instanceof RequestTimeoutError) return e.timeoutMs ?? 0;`,
        `  if (e instanceof McpError) return e.code;`,
        `  const rec = (globalThis as any)[Symbol.for('modelcontext-polyfill')] as ModelContextPolyfillRecord;`,
        `  return rec.client.TransportError === TransportError ? client.pendingRequests : -1;`,
        `}`,
      ].join('\n'),
    );
    for (const r of RESOLUTIONS) {
      const out = tscConsumer(dir, file, r);
      assert.equal(out.status, 0, `moduleResolution ${r[0]}:\n${out.out}`);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("a worker-only project (lib: webworker, no DOM) compiles the package's typings (bundler and nodenext)", () => {
  const dir = stageConsumer();
  try {
    const file = path.join(dir, 'worker.mts');
    fs.writeFileSync(
      file,
      [
        `import { ready, McpClient, PostMessageClientTransport } from 'modelcontext-polyfill';`,
        `export async function serve(): Promise<string> {`,
        `  const rec = await ready;`,
        `  await navigator.modelContext.registerTool({ name: 'w', description: 'in a worker', execute: () => 'w' });`,
        `  const session = await navigator.modelContext.connect({ transport: { type: 'postMessage', target: self } });`,
        `  const client = new McpClient(new PostMessageClientTransport({ target: self }));`,
        `  return rec.version + String(session.isConnected()) + client.state;`,
        `}`,
      ].join('\n'),
    );
    for (const [resolution, mod] of RESOLUTIONS) {
      const out = tsc(['--noEmit', '--strict', '--target', 'es2022', '--module', mod, '--moduleResolution', resolution,
        '--lib', 'es2022,webworker', '--types', '', file], dir);
      assert.equal(out.status, 0, `moduleResolution ${resolution}:\n${out.out}`);
    }
    // The same file against lib dom-less typings must still fail on a real mistake.
    fs.writeFileSync(file, `import 'modelcontext-polyfill';\nexport const n: number = navigator.modelContext;\n`);
    const bad = tsc(['--noEmit', '--strict', '--target', 'es2022', '--module', 'esnext', '--moduleResolution', 'bundler',
      '--lib', 'es2022,webworker', '--types', '', file], dir);
    assert.notEqual(bad.status, 0, 'tsc accepted a wrong type');
    assert.match(bad.out, /TS2322/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('tsc rejects misuse of the classes imported from the package, each at its line', () => {
  const dir = stageConsumer();
  try {
    const file = path.join(dir, 'broken.mts');
    const lines = [
      `import { McpClient, TabClientTransport, EventServerTransport, TransportClosedError } from 'modelcontext-polyfill';`,
      `export async function f() {`,
      `  const client = new McpClient({ start() {} });`, // 3: not a transport
      `  const c2 = new McpClient(new TabClientTransport(), { reconnect: { scheduler: () => 1 } });`, // 4: scheduler result
      `  await c2.callTool('x', {}, { timeout: 5 });`, // 5: unknown option
      `  const s: 'open' = c2.state;`, // 6: not a state
      `  new EventServerTransport({ emitter: {} });`, // 7: not an emitter
      `  const r: number = new TransportClosedError().reason;`, // 8: reason is a string
      `  return [client, s, r];`,
      `}`,
    ];
    fs.writeFileSync(file, lines.join('\n'));
    for (const res of RESOLUTIONS) {
      const r = tscConsumer(dir, file, res);
      assert.notEqual(r.status, 0, `tsc accepted a broken file (${res[0]}):\n${r.out}`);
      for (const line of [3, 4, 5, 6, 7, 8]) {
        assert.match(r.out, new RegExp(`broken\\.mts\\(${line},\\d+\\): error TS\\d+`), `${res[0]}: no error reported on line ${line}:\n${r.out}`);
      }
      assert.equal((r.out.match(/error TS\d+/g) || []).length, 6, r.out);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// McpClient takes any object of the MCP SDK's Transport shape: the SDK's own type and MCP-B's
// transport classes (devDependencies) must be accepted. Their declarations need Node's types,
// so this one compile skips lib checking (the compiles above check typings/ itself).
test("McpClient accepts the MCP SDK's Transport and MCP-B's client transports (types)", (t) => {
  const deps = ['@mcp-b/transports', '@modelcontextprotocol/client'];
  if (!deps.every((d) => fs.existsSync(path.join(REPO_ROOT, 'node_modules', d, 'package.json')))) {
    t.skip(`${deps.join(', ')} not installed (run \`make deps\`)`);
    return;
  }
  checkConsumer('sdk.mts', ['@mcp-b', '@modelcontextprotocol'], [
    `import { McpClient } from 'modelcontext-polyfill';`,
    `import * as mcpb from '@mcp-b/transports';`,
    `import type { Transport } from '@modelcontextprotocol/client';`,
    `export function f(sdk: Transport) {`,
    `  const a = new McpClient(new mcpb.TabClientTransport({ targetOrigin: location.origin }));`,
    `  const b: McpClient<Transport> = new McpClient(sdk, { timeoutMs: 10 });`,
    `  return [a.transport.serverReadyPromise, b.transport.sessionId];`,
    `}`,
  ]);
});

test('a zod schema type-checks as a tool\'s inputSchema (W3C, session API, useTool) and outputSchema; the tool\'s input type is inferred from it', () => {
  checkConsumer('zod.mts', ['zod'], [
    `import type { ModelContextStandardSchema } from 'modelcontext-polyfill';`,
    `import { z } from 'zod';`,
    `import { useTool } from 'modelcontext-polyfill/react';`,
    `const input = z.object({ a: z.number().default(1) });`,
    `export const s: ModelContextStandardSchema = input;`,
    `export async function f() {`,
    // The tool's input type is the schema's output: \`a\` is a number (not any).
    `  await document.modelContext.registerTool({ name: 'z', description: 'd', inputSchema: input, execute: ({ a }) => a.toFixed(1) });`,
    `  navigator.modelContext.registerTool('s', { inputSchema: input, outputSchema: z.object({ n: z.number() }), handler: ({ a }) => ({ content: [], structuredContent: { n: a } }) });`,
    `  // @ts-expect-error: a is a number`,
    `  await document.modelContext.registerTool({ name: 'y', description: 'd', inputSchema: input, execute: ({ a }) => a.toUpperCase() });`,
    `}`,
    `export function sdkForms() {`,
    `  navigator.modelContext.registerResource('config', 'config://app', { mimeType: 'text/plain' }, (uri) => ({ contents: [{ uri: String(uri), text: 'x' }] }));`,
    `  navigator.modelContext.registerResource('tagged', { uriTemplate: { toString: () => 'notes://{tag}' } }, {}, (uri, { tag }) => tag);`,
    `  navigator.modelContext.registerPrompt('review', { argsSchema: { code: z.string(), style: z.string().optional() } }, ({ code }) => code);`,
    `  navigator.modelContext.registerPrompt('greet', { argsSchema: z.object({ name: z.string() }) }, ({ name }) => name);`,
    `  // @ts-expect-error: the reader comes last`,
    `  navigator.modelContext.registerResource('config', 'config://app', { mimeType: 'text/plain' });`,
    `}`,
    `export function Component() {`,
    `  const state = useTool({ name: 'r', description: 'd', inputSchema: input, execute: ({ a }) => a * 2 });`,
    `  const last: number | undefined = state.lastResult;`,
    `  // @ts-expect-error: a is a number`,
    `  useTool({ name: 'q', description: 'd', inputSchema: input, execute: ({ a }) => a.toUpperCase() });`,
    `  return last;`,
    `}`,
  ]);
});

// Unions the declarations spell out that only the Rust source lists.
test('McpProtocolVersion and McpClientState list what src/client/phase.rs does', () => {
  const core = fs.readFileSync(path.join(REPO_ROOT, 'src', 'client', 'phase.rs'), 'utf8');
  const client = stripComments(fs.readFileSync(path.join(TYPINGS, 'client.d.ts'), 'utf8'));
  const union = (name) => {
    const m = client.match(new RegExp(`type ${name} =([^;]*);`));
    assert.ok(m, `type ${name} in client.d.ts`);
    return [...m[1].matchAll(/'([^']*)'/g)].map((x) => x[1]);
  };
  const versions = core.match(/HANDSHAKE_VERSIONS: \[&str; \d+\] = \[([^\]]*)\]/);
  assert.ok(versions, 'HANDSHAKE_VERSIONS in src/client/phase.rs');
  assert.deepEqual(union('McpProtocolVersion'), [...versions[1].matchAll(/"([^"]*)"/g)].map((x) => x[1]));
  const phases = core.match(/fn as_str\(self\) -> &'static str \{([\s\S]*?)\n {4}\}/);
  assert.ok(phases, 'Phase::as_str in src/client/phase.rs');
  assert.deepEqual(union('McpClientState').sort(), [...phases[1].matchAll(/=> "([^"]*)"/g)].map((x) => x[1]).sort());
});

// Drift check: the members the declarations promise are the ones the built polyfill has.
function interfaceMembers(file, name) {
  const text = fs.readFileSync(path.join(TYPINGS, file), 'utf8');
  const start = text.indexOf(`interface ${name} `);
  assert.ok(start >= 0, `interface ${name} in ${file}`);
  let depth = 0;
  let i = text.indexOf('{', start);
  const bodyStart = i + 1;
  for (; i < text.length; i++) {
    if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) break;
  }
  const body = text.slice(bodyStart, i).replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
  // Members start at the interface's own indentation (two spaces).
  return [...new Set([...body.matchAll(/^ {2}(?:readonly )?([A-Za-z_$][\w$]*)[?(<:]/gm)].map((m) => m[1]))].sort();
}

function stripComments(text) {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
}

const TYPINGS_TEXT = () =>
  fs.readdirSync(TYPINGS).filter((f) => f.endsWith('.d.ts')).map((f) => stripComments(fs.readFileSync(path.join(TYPINGS, f), 'utf8')));

/**
 * The members a class or interface `name` declares anywhere in typings/*.d.ts: its bodies (a class
 * and the interface merged into it), plus what it inherits (`extends`) from names declared
 * there too. Without `constructor`.
 */
function declaredMembers(name, texts = TYPINGS_TEXT(), seen = new Set()) {
  if (seen.has(name)) return new Set();
  seen.add(name);
  const out = new Set();
  let found = false;
  const head = new RegExp(`(?:^|\\n)(?:export )?(?:declare )?(?:abstract )?(?:class|interface) ${name}\\b([^{]*)\\{`, 'g');
  for (const text of texts) {
    for (const m of text.matchAll(head)) {
      found = true;
      let depth = 0;
      let i = m.index + m[0].length - 1;
      const bodyStart = i + 1;
      for (; i < text.length; i++) {
        if (text[i] === '{') depth++;
        else if (text[i] === '}' && --depth === 0) break;
      }
      const body = text.slice(bodyStart, i);
      for (const mm of body.matchAll(/^ {2}(?:readonly )?([A-Za-z_$][\w$]*)[?(<:]/gm)) {
        if (mm[1] !== 'constructor') out.add(mm[1]);
      }
      const heritage = m[1].replace(/<[^<>]*(?:<[^<>]*>[^<>]*)*>/g, '');
      const ext = heritage.match(/\bextends\s+([\s\S]*?)(?:\bimplements\b|$)/);
      for (const parent of ext ? ext[1].split(',').map((x) => x.trim()).filter(Boolean) : []) {
        for (const member of declaredMembers(parent, texts, seen)) out.add(member);
      }
    }
  }
  if (!found && seen.size === 1) assert.fail(`class or interface ${name} is not declared in typings/`);
  return out;
}

/** The classes a typings module exports as values (`export declare class X`). */
function declaredClasses(file) {
  const text = stripComments(fs.readFileSync(path.join(TYPINGS, file), 'utf8'));
  return [...text.matchAll(/^export declare class ([A-Za-z_$][\w$]*)/gm)].map((m) => m[1]).sort();
}

test('the declared ModelContext, ModelContextSession, transport and handler-options members exist on the built polyfill', async () => {
  requireDist('modelcontext.iife.js');
  const declared = {
    // (With the members of the interfaces they extend, ModelContextResourceRegistration.)
    ModelContext: [...declaredMembers('ModelContext')].sort(),
    ModelContextSession: [...declaredMembers('ModelContextSession')].sort(),
    ToolExecuteCallbackOptions: interfaceMembers('webmcp.d.ts', 'ModelContextHandlerExtra'),
    ModelContextServerTransport: interfaceMembers('session.d.ts', 'ModelContextServerTransport'),
  };
  assert.ok(declared.ModelContext.includes('registerTool') && declared.ModelContext.includes('ontoolchange'));
  const actual = await withPage(
    ({ page }) =>
      page.evaluate(async () => {
        const names = (o) => {
          const out = new Set();
          for (let p = o; p && p !== Object.prototype; p = Object.getPrototypeOf(p)) {
            for (const k of Object.getOwnPropertyNames(p)) out.add(k);
          }
          return [...out];
        };
        const mc = document.modelContext;
        const session = await mc.connect();
        let extra;
        await mc.registerTool({ name: 'probe', description: 'p', execute: (_, o) => { extra = names(o); return ''; } });
        await mc.executeTool((await mc.getTools())[0], {});
        const inherited = Object.getOwnPropertyNames(EventTarget.prototype);
        const format = globalThis[Symbol.for('modelcontext-polyfill')].format;
        const owned = await mc.connect({ transport: { type: 'tab', channelId: 'typings-probe' } });
        const transport = names(owned.transport);
        owned.disconnect();
        return {
          ModelContext: names(mc),
          inherited,
          ModelContextSession: names(session),
          ToolExecuteCallbackOptions: extra,
          ModelContextServerTransport: transport,
          format,
        };
      }),
    { html: '<script src="/dist/modelcontext.iife.js"></script>' },
  );
  assert.equal(actual.format, 'classic', "ModelContextPolyfillRecord['format'] of the classic build");
  for (const [iface, members] of Object.entries(declared)) {
    // requestId/_meta exist only for calls that came over MCP; setStatus/getTaskId only for
    // calls that may run as MCP tasks (tasks.test.mjs checks those).
    const optional = iface === 'ToolExecuteCallbackOptions' ? ['requestId', '_meta', 'setStatus', 'getTaskId'] : [];
    const missing = members.filter((m) => !actual[iface].includes(m) && !optional.includes(m));
    assert.deepEqual(missing, [], `${iface}: declared but missing at runtime`);
  }
  // And the other way: public runtime members the declarations do not mention.
  const undeclared = actual.ModelContext.filter(
    (m) => m !== 'constructor' && !actual.inherited.includes(m) && !declared.ModelContext.includes(m),
  );
  assert.deepEqual(undeclared, [], 'ModelContext members missing from typings/webmcp.d.ts');
});

test('the declared server transport classes, client classes and polyfill record match the built polyfill (ESM exports too)', async () => {
  requireDist('modelcontext.js');
  const transports = declaredClasses('transports.d.ts');
  const client = declaredClasses('client.d.ts');
  assert.ok(transports.length >= 7 && client.length >= 11, `${transports} / ${client}`);
  const declared = Object.fromEntries([...transports, ...client].map((c) => [c, [...declaredMembers(c)].sort()]));
  // The parser must see inherited and merged members, or the comparison would be vacuous.
  assert.ok(declared.McpClient.includes('callTool') && declared.McpClient.includes('onreconnect'), declared.McpClient);
  assert.ok(declared.TabClientTransport.includes('start') && declared.TabClientTransport.includes('onmessage'), declared.TabClientTransport);
  assert.ok(declared.RequestTimeoutError.includes('timeoutMs') && declared.RequestTimeoutError.includes('code'), declared.RequestTimeoutError);
  assert.ok(declared.BroadcastChannelServerTransport.includes('instanceId'), declared.BroadcastChannelServerTransport);
  const record = interfaceMembers('index.d.ts', 'ModelContextPolyfillRecord');

  const actual = await withPage(
    async ({ page }) => {
      await page.waitForFunction(() => window.loaded);
      return page.evaluate(async () => {
        const rec = globalThis[Symbol.for('modelcontext-polyfill')];
        const members = (cls) => {
          const out = new Set();
          for (let p = cls.prototype; p && p !== Object.prototype && p !== Error.prototype; p = Object.getPrototypeOf(p)) {
            for (const k of Object.getOwnPropertyNames(p)) out.add(k);
          }
          // The error classes set their fields in the constructor.
          if (cls.prototype instanceof Error) for (const k of Object.getOwnPropertyNames(new cls(0, 'x'))) out.add(k);
          return [...out].sort();
        };
        const classes = { ...rec.transports, ...rec.client };
        return {
          record: Object.keys(rec).sort(),
          format: rec.format,
          transports: Object.keys(rec.transports).sort(),
          client: Object.keys(rec.client).sort(),
          members: Object.fromEntries(Object.entries(classes).map(([k, v]) => [k, members(v)])),
          statics: Object.fromEntries(Object.entries(classes).map(([k, v]) => [k, Object.getOwnPropertyNames(v)])),
          esm: Object.keys(window.M).sort(),
          esmSame: Object.entries(window.M).every(([k, v]) => (k === 'ready' ? v === rec.ready : k === 'loadClient' || v === classes[k])),
          // The client classes stand in for the client module's (polyfill/src/client.js): the
          // module's own classes, member for member.
          standIns: await (async () => {
            const real = await import('/dist/modelcontext_client_glue.js');
            const own = (cls) => Object.getOwnPropertyNames(cls.prototype).filter((k) => !['constructor', '__destroy_into_raw'].includes(k)).sort();
            const names = Object.keys(rec.client).filter((k) => typeof real[k] === 'function');
            return Object.fromEntries(names.map((k) => [k, { standIn: own(rec.client[k]), module: own(real[k]) }]));
          })(),
        };
      });
    },
    { html: `<script type="module">import * as M from '/dist/modelcontext.js'; await M.ready; window.M = M; window.loaded = true;</script>` },
  );

  assert.deepEqual(actual.transports, transports, 'record.transports vs the classes typings/transports.d.ts exports');
  assert.deepEqual(actual.client, [...client, 'load'].sort(), 'record.client vs the classes typings/client.d.ts exports, and load');
  assert.deepEqual(actual.esm, [...transports, ...client, 'loadClient', 'ready'].sort(), "dist/modelcontext.js's named exports vs the declared classes, loadClient and ready");
  assert.equal(Object.keys(actual.standIns).length, 7, Object.keys(actual.standIns).join(' '));
  for (const [name, { standIn, module }] of Object.entries(actual.standIns)) {
    assert.deepEqual(standIn, module, `the stand-in ${name} vs the client module's class`);
  }
  assert.equal(actual.esmSame, true, 'the ESM exports are the record\'s classes');
  assert.deepEqual(actual.record, [...record].sort(), 'the record\'s keys vs ModelContextPolyfillRecord');
  assert.equal(actual.format, 'esm');

  // Runtime members no declaration needs to mention: wasm-bindgen's internals, Error's own.
  const internal = new Set(['constructor', '__destroy_into_raw', 'name', 'message', 'stack']);
  const drift = {};
  for (const cls of [...transports, ...client]) {
    const runtime = actual.members[cls];
    const problems = {
      declaredButMissingAtRuntime: declared[cls].filter((m) => !runtime.includes(m)),
      atRuntimeButUndeclared: runtime.filter((m) => !internal.has(m) && !declared[cls].includes(m)),
      undeclaredStatics: actual.statics[cls].filter((m) => !['length', 'name', 'prototype', '__wrap'].includes(m)),
    };
    for (const [k, v] of Object.entries(problems)) if (v.length) (drift[cls] ??= {})[k] = v;
  }
  assert.deepEqual(drift, {}, 'class members: typings/ vs the built polyfill');
});
