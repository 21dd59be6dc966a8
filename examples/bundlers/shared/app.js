// The app every example bundles, imported after the polyfill: one tool with an input schema,
// called once with valid input and once with invalid input. It runs when it is imported:
// document.modelContext already exists then (the polyfill installs synchronously) and the calls
// wait for the core wasm.
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
  .then(() => mc.getTools())
  .then(async (tools) => {
    const add = tools.find((t) => t.name === 'add');
    const valid = await mc.executeTool(add, { a: 2, b: 3 });
    const invalid = await mc.executeTool(add, { a: 'two', b: 3 }).then(
      () => 'resolved',
      (e) => e.name,
    );
    show({ valid, invalid });
  })
  .catch((e) => show({ error: `${e.name}: ${e.message}` }));
