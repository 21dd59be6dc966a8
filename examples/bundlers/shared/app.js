// The app every example bundles, imported after the polyfill: two tools with input schemas, each
// called once with valid input and once with invalid input. `add`'s schema is plain (the core
// checks it); `greet`'s pattern names a Unicode property (`\p{Ll}`, a lowercase letter of any
// script), which only the validator module checks: it loads (the second wasm file, fetched where
// the bundler put it). It runs when it is imported: document.modelContext already
// exists then (the polyfill installs synchronously) and the calls wait for the core wasm. Then an
// McpClient calls `add` through the page's own tab server: the client module (the third wasm
// file) loads when the client is made. Last, a <form toolname> becomes a tool (the core's
// deferred module, the fourth).
const mc = document.modelContext;
const show = (result) => {
  window.result = result;
  document.getElementById('out').textContent = JSON.stringify(result, null, 2);
};
mc.registerTool({
  name: 'add',
  description: 'Adds two integers',
  inputSchema: {
    type: 'object',
    properties: { a: { type: 'integer' }, b: { type: 'integer' } },
    required: ['a', 'b'],
  },
  execute: ({ a, b }) => String(a + b),
})
  .then(() =>
    mc.registerTool({
      name: 'greet',
      description: 'Greets a lowercase name',
      inputSchema: {
        type: 'object',
        properties: { name: { type: 'string', pattern: '^\\p{Ll}+$' } },
        required: ['name'],
      },
      execute: ({ name }) => `hi ${name}`,
    }),
  )
  .then(() => mc.getTools())
  .then(async (tools) => {
    const tool = (name) => tools.find((t) => t.name === name);
    const settled = (p) => p.then(() => 'resolved', (e) => e.name);
    const valid = await mc.executeTool(tool('add'), { a: 2, b: 3 });
    const invalid = await settled(mc.executeTool(tool('add'), { a: 'two', b: 3 }));
    const patternValid = await mc.executeTool(tool('greet'), { name: 'ada' });
    const patternInvalid = await settled(mc.executeTool(tool('greet'), { name: 'Ada!' }));
    const { McpClient, TabClientTransport } = (await globalThis[Symbol.for('modelcontext-polyfill')].ready).client;
    const client = new McpClient(new TabClientTransport({ targetOrigin: location.origin }));
    await client.connect();
    const viaClient = (await client.callTool('add', { a: 20, b: 22 })).content[0].text;
    await client.close();
    // A declarative tool: a <form toolname> is a tool once the declarative API has read it (its
    // work is in the core's deferred module, the fourth wasm file, fetched after the start).
    const form = document.createElement('form');
    form.setAttribute('toolname', 'subscribe');
    form.setAttribute('tooldescription', 'Subscribes an address to the newsletter');
    form.innerHTML = '<input name="email" type="email" required>';
    document.body.append(form);
    let formTool = 'not a tool after 10 s';
    for (let i = 0; i < 200; i++) {
      if ((await mc.getTools()).some((t) => t.name === 'subscribe')) {
        formTool = 'subscribe';
        break;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    show({ valid, invalid, patternValid, patternInvalid, viaClient, formTool });
  })
  .catch((e) => show({ error: `${e.name}: ${e.message}` }));
