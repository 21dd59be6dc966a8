// A module worker with its own MCP server. The polyfill installs navigator.modelContext here too
// (a worker has no document), and the server answers the page over postMessage (target: self).
// This module's body runs after the polyfill's top-level await, so it is installed by now.
import '/dist/modelcontext.js';

const mc = navigator.modelContext;

await mc.registerTool({
  name: 'count_primes',
  title: 'Count primes',
  description: 'Count the prime numbers below n. CPU-heavy for large n; it runs in a worker, so the page stays responsive.',
  inputSchema: {
    type: 'object',
    properties: { below: { type: 'integer', minimum: 2, maximum: 50000000 } },
    required: ['below'],
  },
  annotations: { readOnlyHint: true },
  execute: ({ below }) => {
    const t0 = performance.now();
    const composite = new Uint8Array(below);
    let primes = 0;
    for (let i = 2; i < below; i++) {
      if (composite[i]) continue;
      primes++;
      for (let j = i * i; j < below; j += i) composite[j] = 1;
    }
    return { below, primes, ms: Math.round(performance.now() - t0), inWorker: typeof document === 'undefined' };
  },
});

await mc.connect({
  serverInfo: { name: 'prime-worker', version: '1.0.0' },
  transport: { type: 'postMessage', target: self },
});

// The server is listening: tell the page it can connect (a message sent earlier could be lost).
self.postMessage({ ready: true });
