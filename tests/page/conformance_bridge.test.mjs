// The page bridge (conformance/bridge.mjs): the MCP server inside conformance/fixtures.html, in
// headless Chromium, reached by the official MCP TypeScript client (@modelcontextprotocol/client)
// over Streamable HTTP in both eras and over stdio — plus the HTTP details the transport spec
// asks of a server (sessions, DELETE, DNS rebinding protection, 2026-07-28 header checks).
// The full official suite runs in conformance/official.sh (it needs Node >= 22).

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { REPO_ROOT, requireDist } from './harness.mjs';
import { startBridge } from '../../conformance/bridge.mjs';

requireDist('modelcontext.js');
const FIXTURES = path.join(REPO_ROOT, 'conformance', 'fixtures.html');
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { elicitation: {}, sampling: {}, roots: {} },
};

/** A client that answers sampling with "Paris" and elicitation by what the message asks. */
function newClient(mode) {
  const client = new Client(
    { name: 'bridge-test', version: '1.0.0' },
    { capabilities: { sampling: {}, elicitation: {}, roots: {} }, versionNegotiation: { mode } },
  );
  client.setRequestHandler('sampling/createMessage', async () => ({
    role: 'assistant',
    content: { type: 'text', text: 'Paris' },
    model: 'test-model',
    stopReason: 'endTurn',
  }));
  client.setRequestHandler('elicitation/create', async (req) => {
    const msg = req.params.message;
    if (/color/i.test(msg)) return { action: 'accept', content: { color: 'teal' } };
    if (/name/i.test(msg)) return { action: 'accept', content: { name: 'Ada' } };
    return { action: 'accept', content: { ok: true } };
  });
  client.setRequestHandler('roots/list', async () => ({ roots: [{ uri: 'file:///work', name: 'work' }] }));
  return client;
}

const textOf = (r) => r.content.map((c) => c.text).join('');

let bridge;
before(async () => {
  bridge = await startBridge({ page: FIXTURES, http: 0 });
});
after(async () => {
  await bridge?.close();
});

for (const [mode, version] of [
  ['legacy', '2025-11-25'],
  ['auto', '2026-07-28'],
]) {
  describe(`the official TypeScript client over Streamable HTTP (${version})`, () => {
    let client;
    before(async () => {
      client = newClient(mode);
      await client.connect(new StreamableHTTPClientTransport(new URL(bridge.url)));
    });
    after(async () => {
      await client?.close();
    });

    test('negotiates and lists the fixtures registered by the page', async () => {
      assert.equal(client.getNegotiatedProtocolVersion(), version);
      assert.equal(client.getServerVersion()?.name, 'mcp-conformance-fixtures-page');
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name);
      for (const n of ['test_simple_text', 'test_tool_with_progress', 'test_input_required_result_multi_round']) assert.ok(names.includes(n), n);
      const { resources } = await client.listResources();
      assert.ok(resources.some((r) => r.uri === 'test://static-text'));
      const { prompts } = await client.listPrompts();
      assert.ok(prompts.some((p) => p.name === 'test_prompt_with_arguments'));
    });

    test('a W3C tool and a session-API tool with progress (SSE)', async () => {
      assert.equal(textOf(await client.callTool({ name: 'test_simple_text', arguments: {} })), 'This is a simple text response for testing.');
      const progress = [];
      await client.callTool({ name: 'test_tool_with_progress', arguments: {} }, { onprogress: (p) => progress.push(p.progress) });
      assert.deepEqual(progress, [0, 50, 100]);
    });

    test('an input-required tool over two rounds (the engine asks the client itself before 2026-07-28)', async () => {
      const r = await client.callTool({ name: 'test_input_required_result_multi_round', arguments: {} });
      assert.equal(textOf(r), "Ada's favorite color is teal");
      const roots = await client.callTool({ name: 'test_input_required_result_list_roots', arguments: {} });
      assert.equal(textOf(roots), 'Client roots: file:///work');
    });

    test('resources and prompts', async () => {
      const r = await client.readResource({ uri: 'test://template/7/data' });
      assert.deepEqual(JSON.parse(r.contents[0].text), { id: '7', templateTest: true, data: 'Data for ID: 7' });
      const p = await client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'a', arg2: 'b' } });
      assert.equal(p.messages[0].content.text, "Prompt with arguments: arg1='a', arg2='b'");
    });
  });
}

test('handshake era: sampling through extra.sendRequest reaches the client over the POST stream', async () => {
  const client = newClient('legacy');
  await client.connect(new StreamableHTTPClientTransport(new URL(bridge.url)));
  try {
    const r = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'Capital of France?' } });
    assert.equal(textOf(r), 'LLM response: Paris');
  } finally {
    await client.close();
  }
});

describe('HTTP details', () => {
  const post = (body, headers = {}) =>
    fetch(bridge.url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const initialize = (id = 1) => ({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });

  test('sessions: initialize issues Mcp-Session-Id; requests without it are 400, after DELETE 404', async () => {
    const r = await post(initialize());
    assert.equal(r.status, 200);
    const sid = r.headers.get('mcp-session-id');
    assert.match(sid, /^[\x21-\x7e]+$/);
    assert.equal((await r.json()).result.protocolVersion, '2025-11-25');
    const note = await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, { 'Mcp-Session-Id': sid });
    assert.equal(note.status, 202);
    const list = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'Mcp-Session-Id': sid, 'MCP-Protocol-Version': '2025-11-25' });
    assert.equal(list.status, 200);
    assert.equal((await post({ jsonrpc: '2.0', id: 3, method: 'tools/list' })).status, 400);
    assert.equal((await post({ jsonrpc: '2.0', id: 3, method: 'tools/list' }, { 'Mcp-Session-Id': 'nope' })).status, 404);
    const del = await fetch(bridge.url, { method: 'DELETE', headers: { 'Mcp-Session-Id': sid } });
    assert.equal(del.status, 200);
    assert.equal((await post({ jsonrpc: '2.0', id: 4, method: 'ping' }, { 'Mcp-Session-Id': sid })).status, 404);
  });

  test('DNS rebinding protection: a foreign Origin is 403', async () => {
    const r = await post(initialize(), { Origin: 'http://evil.example.com' });
    assert.equal(r.status, 403);
  });

  test('malformed requests: bad JSON 400/-32700, wrong Content-Type 415', async () => {
    const bad = await post('{not json');
    assert.equal(bad.status, 400);
    assert.equal((await bad.json()).error.code, -32700);
    const ct = await fetch(bridge.url, { method: 'POST', headers: { 'Content-Type': 'text/plain', Accept: 'application/json' }, body: '{}' });
    assert.equal(ct.status, 415);
  });

  test('2026-07-28: header mismatch is 400/-32020, an unknown method 404/-32601', async () => {
    const h = { 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/list' };
    const ok = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: META } }, h);
    assert.equal(ok.status, 200);
    assert.equal((await ok.json()).result.resultType, 'complete');
    const mismatch = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: META } }, { ...h, 'MCP-Protocol-Version': '2025-11-25' });
    assert.equal(mismatch.status, 400);
    assert.deepEqual([(await mismatch.json()).error.code], [-32020]);
    const method = await post({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: { _meta: META } }, { ...h, 'Mcp-Method': 'prompts/list' });
    assert.equal(method.status, 400);
    const unknown = await post({ jsonrpc: '2.0', id: 4, method: 'nope/nope', params: { _meta: META } }, { ...h, 'Mcp-Method': 'nope/nope' });
    assert.equal(unknown.status, 404);
    assert.equal((await unknown.json()).error.code, -32601);
  });

  test('2026-07-28: input_required → retry with inputResponses and the signed requestState; tampering is 400/-32602', async () => {
    const call = (extra) =>
      post(
        { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'test_input_required_result_request_state', arguments: {}, _meta: META, ...extra } },
        { 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': 'test_input_required_result_request_state' },
      ).then(async (r) => ({ status: r.status, body: await r.json() }));
    const r1 = await call({});
    assert.equal(r1.body.result.resultType, 'input_required');
    const state = r1.body.result.requestState;
    assert.notEqual(state, 'awaiting-confirmation', 'the state is signed');
    const r2 = await call({ inputResponses: { confirm: { action: 'accept', content: { ok: true } } }, requestState: state });
    assert.equal(r2.body.result.content[0].text, 'state-ok: confirmed=true');
    const r3 = await call({ inputResponses: { confirm: { action: 'accept', content: { ok: true } } }, requestState: `${state}x` });
    assert.equal(r3.status, 400);
    assert.equal(r3.body.error.code, -32602);
  });
});

test('stdio: the official client spawns the bridge and talks to the page', async () => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [path.join(REPO_ROOT, 'conformance', 'bridge.mjs'), '--page', FIXTURES, '--stdio'],
    stderr: 'ignore',
  });
  const client = newClient('legacy');
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    assert.ok(tools.length >= 20, `${tools.length} tools`);
    assert.equal(textOf(await client.callTool({ name: 'test_sampling', arguments: { prompt: 'x' } })), 'LLM response: Paris');
  } finally {
    await client.close();
  }
});
