// The official MCP TypeScript client (@modelcontextprotocol/client, v2) against the engine's
// stdio example, unchanged: it spawns target/debug/examples/stdio_server through the SDK's own
// StdioClientTransport, in both protocol eras (the default 2025 `initialize` handshake, and
// `versionNegotiation: 'auto'`, which probes with `server/discover` and speaks 2026-07-28).
//
// Run with `node --test sdk-client.test.mjs` (or ./run.sh). Prints what it saw; any mismatch
// fails the test and the process exits non-zero.

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { SERVER, PNG, WAV, TOOLS } from './server.mjs';

const show = (label, value) =>
  console.log(`  [${label}] ${typeof value === 'string' ? value : JSON.stringify(value)}`);

async function connect(mode, env = {}) {
  const transport = new StdioClientTransport({
    command: SERVER,
    env: { STDIO_SERVER_WATCH_MS: '0', ...env },
    stderr: 'ignore',
  });
  const client = new Client(
    { name: 'modelcontext-polyfill-interop', version: '0.0.0' },
    { versionNegotiation: { mode } },
  );
  await client.connect(transport);
  return client;
}

const textOf = (result) => {
  assert.equal(result.content.length, 1, JSON.stringify(result));
  assert.equal(result.content[0].type, 'text');
  return result.content[0].text;
};

for (const [mode, era, version] of [
  ['legacy', 'legacy', '2025-11-25'],
  ['auto', 'modern', '2026-07-28'],
]) {
  describe(`TypeScript SDK client, versionNegotiation ${mode}`, () => {
    let client;
    before(async () => {
      client = await connect(mode);
    });
    after(async () => {
      await client?.close();
    });

    test('connects and negotiates', () => {
      show('era', client.getProtocolEra());
      show('protocol version', client.getNegotiatedProtocolVersion());
      show('server', client.getServerVersion());
      assert.equal(client.getProtocolEra(), era);
      assert.equal(client.getNegotiatedProtocolVersion(), version);
      assert.equal(client.getServerVersion()?.name, 'modelcontext-polyfill-stdio');
      const caps = client.getServerCapabilities();
      assert.ok(caps.tools && caps.resources && caps.prompts, JSON.stringify(caps));
    });

    test('listTools lists the nine tools', async () => {
      const { tools } = await client.listTools();
      show('tools', tools.map((t) => t.name));
      assert.deepEqual(tools.map((t) => t.name), TOOLS);
      const echo = tools.find((t) => t.name === 'echo');
      assert.deepEqual(echo.inputSchema.required, ['text']);
    });

    test('callTool echo', async () => {
      const r = await client.callTool({ name: 'echo', arguments: { text: 'hello', n: 2 } });
      show('echo', r);
      assert.equal(textOf(r), 'hellohello');
      assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'once' } })), 'once');
    });

    test('callTool with invalid arguments is an isError result', async () => {
      const r = await client.callTool({ name: 'echo', arguments: { n: 'x' } });
      show('invalid arguments', r);
      assert.equal(r.isError, true);
      assert.match(textOf(r), /required/);
      assert.match(textOf(r), /\/n/);
    });

    test('callTool on an unknown tool is rejected', async () => {
      await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }), (e) => {
        show('unknown tool', `${e.constructor.name} ${e.code}: ${e.message}`);
        return e.code === -32602;
      });
    });

    test('every content fixture', async () => {
      const call = (name) => client.callTool({ name, arguments: {} });
      assert.equal(textOf(await call('test_simple_text')), 'This is a simple text response for testing.');
      assert.deepEqual((await call('test_image_content')).content, [
        { type: 'image', data: PNG, mimeType: 'image/png' },
      ]);
      assert.deepEqual((await call('test_audio_content')).content, [
        { type: 'audio', data: WAV, mimeType: 'audio/wav' },
      ]);
      assert.deepEqual((await call('test_embedded_resource')).content, [
        {
          type: 'resource',
          resource: {
            uri: 'test://embedded-resource',
            mimeType: 'text/plain',
            text: 'This is an embedded resource content.',
          },
        },
      ]);
      const mixed = await call('test_multiple_content_types');
      show('mixed content types', mixed.content.map((c) => c.type));
      assert.deepEqual(mixed.content.map((c) => c.type), ['text', 'image', 'resource']);
      const err = await call('test_error_handling');
      show('error tool', err);
      assert.equal(err.isError, true);
      assert.equal(textOf(err), 'This tool intentionally returns an error for testing');
    });

    test('progress notifications reach onprogress', async () => {
      const seen = [];
      const errors = [];
      const previous = client.onerror;
      client.onerror = (e) => errors.push(e.message);
      let r;
      try {
        r = await client.callTool(
          { name: 'test_tool_with_progress', arguments: {} },
          { onprogress: (p) => seen.push(p) },
        );
        await new Promise((resolve) => setTimeout(resolve, 50));
      } finally {
        client.onerror = previous;
      }
      show('progress', seen);
      show('progress result', r);
      const expected = [
        [0, 100, 'Completed step 0 of 100'],
        [50, 100, 'Completed step 50 of 100'],
        [100, 100, 'Completed step 100 of 100'],
      ];
      const got = seen.map((p) => [p.progress, p.total, p.message]);
      if (got.length === 2) {
        // The server wrote progress 100 and then the response, in that order, but this SDK
        // dispatches notifications a microtask late and responses at once, so the response
        // retires the token first and the last notification lands in onerror
        // (modelcontextprotocol/typescript-sdk#2580).
        show('SDK dropped the final progress (typescript-sdk#2580)', errors);
        assert.deepEqual(got, expected.slice(0, 2));
        assert.equal(errors.length, 1, JSON.stringify(errors));
        assert.match(errors[0], /unknown token.*"progress":100,"total":100/);
      } else {
        assert.deepEqual(got, expected);
        assert.deepEqual(errors, []);
      }
      // The fixture answers with the progress token it was given (the SDK uses the request id).
      assert.match(textOf(r), /^\d+$/);
    });

    test('log messages reach the notification handler', async () => {
      const logs = [];
      client.setNotificationHandler('notifications/message', (n) => logs.push(n.params));
      if (era === 'legacy') {
        await client.setLoggingLevel('debug');
        await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
      } else {
        // 2026-07-28 has no logging/setLevel: each request opts in with a _meta level.
        await assert.rejects(client.setLoggingLevel('debug'), /not supported/);
        await client.callTool({
          name: 'test_tool_with_logging',
          arguments: {},
          _meta: { 'io.modelcontextprotocol/logLevel': 'debug' },
        });
      }
      show('logs', logs);
      assert.deepEqual(
        logs.map((l) => [l.level, l.data]),
        [
          ['info', 'Tool execution started'],
          ['info', 'Tool processing data'],
          ['info', 'Tool execution completed'],
        ],
      );
    });

    test('resources: list, templates, read', async () => {
      const { resources } = await client.listResources();
      show('resources', resources.map((r) => r.uri));
      assert.deepEqual(resources.map((r) => r.uri), [
        'test://static-binary',
        'test://static-text',
        'test://watched-resource',
      ]);
      const { resourceTemplates } = await client.listResourceTemplates();
      show('templates', resourceTemplates.map((t) => t.uriTemplate));
      assert.deepEqual(resourceTemplates.map((t) => t.uriTemplate), ['test://template/{id}/data']);

      const text = await client.readResource({ uri: 'test://static-text' });
      show('read static-text', text.contents);
      assert.deepEqual(text.contents, [
        {
          uri: 'test://static-text',
          mimeType: 'text/plain',
          text: 'This is the content of the static text resource.',
        },
      ]);
      const blob = await client.readResource({ uri: 'test://static-binary' });
      assert.deepEqual(blob.contents, [{ uri: 'test://static-binary', mimeType: 'image/png', blob: PNG }]);
      const templated = await client.readResource({ uri: 'test://template/123/data' });
      show('read template', templated.contents);
      assert.deepEqual(JSON.parse(templated.contents[0].text), {
        id: '123',
        templateTest: true,
        data: 'Data for ID: 123',
      });
      // The wire code is -32002 in 2025-11-25 and -32602 in 2026-07-28; the SDK surfaces
      // both as ResourceNotFoundError (code -32602).
      await assert.rejects(client.readResource({ uri: 'test://nope' }), (e) => {
        show('read missing', `${e.constructor.name} ${e.code}: ${e.message} ${JSON.stringify(e.data)}`);
        return e.constructor.name === 'ResourceNotFoundError' && e.data?.uri === 'test://nope';
      });
    });

    test('prompts: list and get', async () => {
      const { prompts } = await client.listPrompts();
      show('prompts', prompts.map((p) => p.name));
      assert.equal(prompts.length, 4);
      const simple = await client.getPrompt({ name: 'test_simple_prompt' });
      assert.equal(simple.messages[0].content.text, 'This is a simple prompt for testing.');
      const withArgs = await client.getPrompt({
        name: 'test_prompt_with_arguments',
        arguments: { arg1: 'hello', arg2: 'world' },
      });
      show('getPrompt with arguments', withArgs);
      assert.equal(withArgs.messages[0].content.text, "Prompt with arguments: arg1='hello', arg2='world'");
      const embedded = await client.getPrompt({
        name: 'test_prompt_with_embedded_resource',
        arguments: { resourceUri: 'test://example-resource' },
      });
      assert.equal(embedded.messages[0].content.resource.uri, 'test://example-resource');
      const image = await client.getPrompt({ name: 'test_prompt_with_image' });
      assert.equal(image.messages[0].content.data, PNG);
      await assert.rejects(
        client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'x' } }),
        (e) => e.code === -32602,
      );
    });

    test('completion', async () => {
      const r = await client.complete({
        ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
        argument: { name: 'arg1', value: 'par' },
      });
      show('complete', r.completion);
      assert.deepEqual(r.completion.values, ['paris', 'park', 'party']);
    });
  });
}

describe('TypeScript SDK client, resource updates', () => {
  test('legacy: resources/subscribe then notifications/resources/updated', async () => {
    const client = await connect('legacy', { STDIO_SERVER_WATCH_MS: '100' });
    try {
      const updated = new Promise((resolve) =>
        client.setNotificationHandler('notifications/resources/updated', (n) => resolve(n.params)),
      );
      await client.subscribeResource({ uri: 'test://watched-resource' });
      const params = await updated;
      show('resources/updated', params);
      assert.deepEqual(params, { uri: 'test://watched-resource' });
      const r = await client.readResource({ uri: 'test://watched-resource' });
      assert.match(r.contents[0].text, /^Watched resource content \(update \d+\)$/);
      await client.unsubscribeResource({ uri: 'test://watched-resource' });
    } finally {
      await client.close();
    }
  });

  test('modern: subscriptions/listen then notifications/resources/updated', async () => {
    const client = await connect('auto', { STDIO_SERVER_WATCH_MS: '100' });
    try {
      const updated = new Promise((resolve) =>
        client.setNotificationHandler('notifications/resources/updated', (n) => resolve(n.params)),
      );
      const sub = await client.listen({ resourceSubscriptions: ['test://watched-resource'] });
      show('listen honored', sub.honoredFilter);
      const params = await updated;
      show('resources/updated', params);
      assert.equal(params.uri, 'test://watched-resource');
      await sub.close();
    } finally {
      await client.close();
    }
  });
});
