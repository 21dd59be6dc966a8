'use client';
// Next.js (App Router; Turbopack or webpack): no configuration. The polyfill is imported by a
// client component: in the browser it installs document.modelContext before the component runs,
// its wasm files emitted by the bundler beside the chunks; while the page is rendered on the
// server (at build time, or per request) the same import installs nothing (no document). A
// component's tool lives as long as the component: its AbortSignal unregisters it.
import 'modelcontext-polyfill';
import { useEffect, useRef, useState } from 'react';

export default function Page() {
  const [status, setStatus] = useState('registering');
  const current = useRef(status);
  useEffect(() => {
    current.current = status;
  }, [status]);
  useEffect(() => {
    import('../../shared/app.js'); // the calls every example makes; it shows them in #out
    const done = new AbortController();
    document.modelContext
      .registerTool(
        { name: 'component_status', description: "Reads the component's status line", execute: () => current.current },
        { signal: done.signal },
      )
      .then(
        () => setStatus('component_status registered'),
        (e) => setStatus(`component_status not registered: ${e.message}`),
      );
    return () => done.abort();
  }, []);
  return (
    <main>
      <p>{status}</p>
      <pre id="out">loading…</pre>
    </main>
  );
}
