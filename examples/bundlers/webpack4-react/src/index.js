// React 17 and webpack 4 (a Create React App 4 app's toolchain) with
// modelcontext-polyfill/react/inline: a counter an agent can increment. useTool registers the
// tool while <Counter> is mounted and reports its calls' state. (Plain createElement and ES2019,
// which webpack 4 parses without a Babel setup; `npm run build`, then serve the directory.)
import { StrictMode, useState, createElement as h } from 'react';
import { render } from 'react-dom';
import { useTool } from 'modelcontext-polyfill/react/inline';

function Counter() {
  const [count, setCount] = useState(0);
  const { isExecuting, lastResult, error, executionCount } = useTool({
    name: 'increment',
    description: 'Adds n to the counter on the page',
    inputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
    execute: async ({ n }) => {
      // n = 99 waits for window.finish() (so a test can watch a call running).
      if (n === 99) await new Promise((resolve) => (window.finish = resolve));
      setCount((c) => c + n);
      return `added ${n}`;
    },
  });
  const last = lastResult === undefined ? '' : lastResult;
  return h('p', { id: 'counter' },
    `count=${count} running=${isExecuting} last=${last} error=${error ? error.name : ''} calls=${executionCount}`);
}

function App() {
  const [shown, setShown] = useState(true);
  const [key, setKey] = useState(0);
  window.toggle = () => setShown((s) => !s);
  window.remount = () => setKey((k) => k + 1); // what a hot reload does: unmount, then mount again
  return shown ? h(Counter, { key }) : h('p', { id: 'gone' }, 'no counter');
}

render(h(StrictMode, null, h(App)), document.getElementById('root'));
