// modelcontext-polyfill/react: React bindings for the polyfill's document.modelContext.
//
//   const { isExecuting, lastResult, error, executionCount } = useTool({ name, description, inputSchema, execute }, [deps]);
//
// useTool registers the tool when the component mounts and unregisters it when it unmounts (an
// AbortSignal, as the WebMCP spec intends): under StrictMode's mount, unmount, mount and under
// hot module reload the first registration is aborted before the next one is made, so it never
// meets "already registered". `deps` re-registers the tool when they change (default: its name);
// the latest `execute` is always the one called. The returned state follows the calls (for UI).
// React is a peer dependency; this file only binds (no algorithm: the engine does the work).
//
// It is written in ES2019, which webpack 4 parses. The build writes it twice: dist/react.js
// (`modelcontext-polyfill/react`), which imports the main entry, and dist/react.inline.js
// (`modelcontext-polyfill/react/inline`), which imports the inline one instead, for the bundlers
// that take `modelcontext-polyfill/inline` (webpack 4, esbuild, Rollup).

import { useEffect, useRef, useState, useCallback } from 'react';
import './modelcontext.js';

const IDLE = Object.freeze({ isExecuting: false, lastResult: undefined, error: undefined, executionCount: 0 });

/** The page's modelContext, or null where there is none (server-side rendering). */
function modelContext() {
  const g = globalThis;
  return (g.document && g.document.modelContext) || (g.navigator && g.navigator.modelContext) || null;
}

export function useTool(definition, deps = undefined) {
  const latest = useRef(definition);
  latest.current = definition;
  const [state, setState] = useState(IDLE);
  const live = useRef(true);

  useEffect(() => {
    live.current = true;
    const mc = modelContext();
    if (!mc) return undefined;
    const controller = new AbortController();
    const { execute: _ignored, ...shape } = latest.current;
    const execute = async (input, options) => {
      if (live.current) setState((s) => ({ ...s, isExecuting: true, executionCount: s.executionCount + 1 }));
      try {
        const result = await latest.current.execute(input, options);
        if (live.current) setState((s) => ({ ...s, isExecuting: false, lastResult: result, error: undefined }));
        return result;
      } catch (e) {
        if (live.current) setState((s) => ({ ...s, isExecuting: false, error: e }));
        throw e;
      }
    };
    mc.registerTool({ ...shape, execute }, { signal: controller.signal }).catch((e) => {
      // Aborted by this very cleanup: expected. Anything else (a bad definition, a name another
      // component holds) is the page's to know.
      if (!controller.signal.aborted) console.error(`modelcontext-polyfill/react: tool ${JSON.stringify(shape.name)} was not registered: ${e && e.message}`);
    });
    return () => {
      live.current = false;
      controller.abort();
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, deps === undefined || deps === null ? [definition.name] : deps);

  const reset = useCallback(() => setState(IDLE), []);
  return { ...state, reset };
}
