// The TypeScript declarations in typings/: `tsc -p typings` (strict) must accept
// typings/test/usage.ts, whose `@ts-expect-error` lines are misuse the declarations must reject;
// and a file of deliberate type errors must fail, so this check can fail at all.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../../scripts/lib/project.mjs';

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

test('the declared ModelContext, ModelContextSession, transport and handler-options members exist on the built polyfill', async () => {
  const { withPage, requireDist } = await import('./harness.mjs');
  requireDist('modelcontext.iife.js');
  const declared = {
    ModelContext: interfaceMembers('webmcp.d.ts', 'ModelContext'),
    ModelContextSession: interfaceMembers('session.d.ts', 'ModelContextSession'),
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
        await mc.registerTool({ name: 'probe', description: 'p', execute: (_, o) => { extra = Object.getOwnPropertyNames(o); return ''; } });
        await mc.executeTool((await mc.getTools())[0], {});
        const inherited = Object.getOwnPropertyNames(EventTarget.prototype);
        const owned = await mc.connect({ transport: { type: 'tab', channelId: 'typings-probe' } });
        const transport = names(owned.transport);
        owned.disconnect();
        return {
          ModelContext: names(mc),
          inherited,
          ModelContextSession: names(session),
          ToolExecuteCallbackOptions: extra,
          ModelContextServerTransport: transport,
        };
      }),
    { html: '<script src="/dist/modelcontext.iife.js"></script>' },
  );
  for (const [iface, members] of Object.entries(declared)) {
    // requestId/_meta exist only for calls that came over MCP.
    const optional = iface === 'ToolExecuteCallbackOptions' ? ['requestId', '_meta'] : [];
    const missing = members.filter((m) => !actual[iface].includes(m) && !optional.includes(m));
    assert.deepEqual(missing, [], `${iface}: declared but missing at runtime`);
  }
  // And the other way: public runtime members the declarations do not mention.
  const undeclared = actual.ModelContext.filter(
    (m) => m !== 'constructor' && !actual.inherited.includes(m) && !declared.ModelContext.includes(m),
  );
  assert.deepEqual(undeclared, [], 'ModelContext members missing from typings/webmcp.d.ts');
});
