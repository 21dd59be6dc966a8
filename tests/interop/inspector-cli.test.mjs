// The MCP inspector's CLI (@modelcontextprotocol/inspector --cli, v2) against the engine's stdio
// example, unchanged: every case is one `inspector --cli <server> --method …` run, as a shell
// or CI job would use it, in both protocol eras (`--protocol-era legacy`, the default for ad-hoc
// targets, and `--protocol-era modern`, which speaks 2026-07-28).
//
// Needs Node ≥ 22.19 (the inspector's engines field). Run with
// `node --test inspector-cli.test.mjs` (or ./run.sh).

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { SERVER, PNG, TOOLS } from './server.mjs';

const require = createRequire(import.meta.url);
const INSPECTOR = path.join(
  path.dirname(require.resolve('@modelcontextprotocol/inspector/package.json')),
  'clients/launcher/build/index.js',
);

let home;
before(async () => {
  // The inspector keeps a catalog and secrets under ~/.mcp-inspector: keep them out of $HOME.
  home = await mkdtemp(path.join(os.tmpdir(), 'inspector-home-'));
});
after(async () => {
  await rm(home, { recursive: true, force: true });
});

/** One CLI run: `{ code, stdout, stderr, json }` (`json`: stdout parsed, `--format json`). */
function inspector(era, ...args) {
  const argv = [
    INSPECTOR,
    '--cli',
    SERVER,
    '-e',
    'STDIO_SERVER_WATCH_MS=0',
    '--protocol-era',
    era,
    '--format',
    'json',
    ...args,
  ];
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      argv,
      { env: { ...process.env, HOME: home }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (error.code ?? 1) : 0;
        let json;
        try {
          json = JSON.parse(stdout);
        } catch {
          json = undefined;
        }
        console.log(`  $ inspector --cli <stdio_server> --protocol-era ${era} ${args.join(' ')}`);
        console.log(`    exit ${code}; stdout ${stdout.trim().slice(0, 300)}`);
        resolve({ code, stdout, stderr, json });
      },
    );
  });
}

for (const era of ['legacy', 'modern']) {
  describe(`MCP inspector CLI, --protocol-era ${era}`, () => {
    test('tools/list', async () => {
      const r = await inspector(era, '--method', 'tools/list');
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(r.json.result.tools.map((t) => t.name), TOOLS);
    });

    test('tools/call echo', async () => {
      const r = await inspector(era, '--method', 'tools/call', '--tool-name', 'echo', '--tool-arg', 'text=hello', 'n=3');
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(r.json.result.content, [{ type: 'text', text: 'hellohellohello' }]);
    });

    test('tools/call with invalid arguments: an isError result, exit 5', async () => {
      const r = await inspector(era, '--method', 'tools/call', '--tool-name', 'echo', '--tool-args-json', '{"text":5}');
      assert.equal(r.code, 5, r.stderr);
      assert.equal(r.json.result.isError, true);
      assert.match(r.json.result.content[0].text, /\/text: 5 is not of type "string"/);
      assert.match(r.stderr, /tool_is_error/);
    });

    test('tools/call test_error_handling: exit 5', async () => {
      const r = await inspector(era, '--method', 'tools/call', '--tool-name', 'test_error_handling');
      assert.equal(r.code, 5, r.stderr);
      assert.deepEqual(r.json.result.content, [
        { type: 'text', text: 'This tool intentionally returns an error for testing' },
      ]);
    });

    test('tools/call of an unknown tool', async () => {
      const r = await inspector(era, '--method', 'tools/call', '--tool-name', 'no_such_tool');
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /no_such_tool/);
    });

    test('resources/list and resources/read', async () => {
      const list = await inspector(era, '--method', 'resources/list');
      assert.equal(list.code, 0, list.stderr);
      assert.deepEqual(list.json.result.resources.map((r) => r.uri), [
        'test://static-binary',
        'test://static-text',
        'test://watched-resource',
      ]);
      const blob = await inspector(era, '--method', 'resources/read', '--uri', 'test://static-binary');
      assert.equal(blob.code, 0, blob.stderr);
      assert.deepEqual(blob.json.result.contents, [
        { uri: 'test://static-binary', mimeType: 'image/png', blob: PNG },
      ]);
      const templated = await inspector(era, '--method', 'resources/read', '--uri', 'test://template/42/data');
      assert.equal(templated.code, 0, templated.stderr);
      assert.equal(
        templated.json.result.contents[0].text,
        '{"id":"42","templateTest":true,"data":"Data for ID: 42"}',
      );
    });

    test('resources/templates/list', async () => {
      const r = await inspector(era, '--method', 'resources/templates/list');
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(r.json.result.resourceTemplates.map((t) => t.uriTemplate), ['test://template/{id}/data']);
    });

    test('prompts/list and prompts/get', async () => {
      const list = await inspector(era, '--method', 'prompts/list');
      assert.equal(list.code, 0, list.stderr);
      assert.equal(list.json.result.prompts.length, 4);
      const r = await inspector(
        era,
        '--method',
        'prompts/get',
        '--prompt-name',
        'test_prompt_with_arguments',
        '--prompt-args',
        'arg1=hello',
        'arg2=world',
      );
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.json.result.messages[0].content.text, "Prompt with arguments: arg1='hello', arg2='world'");
    });
  });
}
