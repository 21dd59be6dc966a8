// A heap snapshot of a page, read whole: what `make bench` (scripts/bench.mjs) sums and what
// tests/page/front.test.mjs looks for in it.

/**
 * Takes a heap snapshot of the page `cdp` (a Chrome DevTools Protocol session) is attached to,
 * after the full garbage collection the snapshot makes, and returns it parsed (V8's
 * `.heapsnapshot` format: `snapshot.meta` describes the flat `nodes` array).
 */
export async function heapSnapshot(cdp) {
  const chunks = [];
  const onChunk = (e) => chunks.push(e.chunk);
  cdp.on('HeapProfiler.addHeapSnapshotChunk', onChunk);
  try {
    await cdp.send('HeapProfiler.enable');
    await cdp.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false, captureNumericValue: false });
  } finally {
    cdp.off('HeapProfiler.addHeapSnapshotChunk', onChunk);
    // Enabled, the profiler keeps an id for every object the snapshot saw and moves it with the
    // object at each collection, which slows every collection after (a page's 1 MiB results
    // took up to ten times as long); disabling it drops them.
    await cdp.send('HeapProfiler.disable').catch(() => {});
  }
  return JSON.parse(chunks.join(''));
}
