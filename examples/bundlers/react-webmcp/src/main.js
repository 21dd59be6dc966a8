// MCP-B's React hooks (@mcp-b/react-webmcp) on this polyfill: the hooks register through
// document.modelContext, which modelcontext-polyfill provides in place of @mcp-b/global. A counter
// an agent can increment. (Plain createElement, so the example needs no JSX setup; `npx vite`
// runs it.)
import 'modelcontext-polyfill';
import { StrictMode, useState, createElement as h } from 'react';
import { createRoot } from 'react-dom/client';
import { useWebMCP } from '@mcp-b/react-webmcp';

function Counter() {
  const [count, setCount] = useState(0);
  const { state } = useWebMCP({
    name: 'increment',
    description: 'Adds by to the counter on the page',
    inputSchema: { type: 'object', properties: { by: { type: 'integer' } }, required: ['by'] },
    execute: async ({ by }) => {
      setCount((c) => c + by);
      return { added: by };
    },
  });
  return h('p', { id: 'counter' }, `count=${count} calls=${state.executionCount}`);
}

function App() {
  const [shown, setShown] = useState(true);
  window.toggle = () => setShown((s) => !s);
  return shown ? h(Counter) : h('p', { id: 'gone' }, 'no counter');
}

createRoot(document.getElementById('root')).render(h(StrictMode, null, h(App)));
