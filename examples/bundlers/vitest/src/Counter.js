// A counter an agent can increment: useTool registers `increment` while <Counter> is mounted.
// (Plain createElement, so the example needs no JSX setup.)
import { useState, createElement as h } from 'react';
import { useTool } from 'modelcontext-polyfill/react';

export function Counter() {
  const [count, setCount] = useState(0);
  const { executionCount } = useTool({
    name: 'increment',
    description: 'Adds n to the counter on the page',
    inputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
    execute: ({ n }) => {
      setCount((c) => c + n);
      return `added ${n}`;
    },
  });
  return h('p', { id: 'counter' }, `count=${count} calls=${executionCount}`);
}
