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

/**
 * How many nodes of `snap` (a parsed heap snapshot) are named `name`, of node type `type`
 * ('object' for instances of a JS class, by its name; undefined for any type).
 */
export function countNamed(snap, name, type) {
  const f = snap.snapshot.meta.node_fields;
  const [typeField, nameField] = ['type', 'name'].map((k) => f.indexOf(k));
  const wanted = type === undefined ? -1 : snap.snapshot.meta.node_types[0].indexOf(type);
  let n = 0;
  for (let i = 0; i < snap.nodes.length; i += f.length) {
    if ((wanted < 0 || snap.nodes[i + typeField] === wanted) && snap.strings[snap.nodes[i + nameField]] === name) n++;
  }
  return n;
}

/**
 * A heap snapshot taken once what was dropped has been collected: a wasm-bindgen object's wasm
 * side is freed by a finalizer, which runs after a collection, and what it held is collected by
 * the next; a few rounds of a collection and a turn of the page's event loop let each release
 * be collected in turn.
 */
export async function settledHeapSnapshot(cdp, page, rounds = 3) {
  for (let i = 0; i < rounds; i++) {
    await cdp.send('HeapProfiler.collectGarbage');
    await page.evaluate(() => new Promise((r) => setTimeout(r, 50)));
  }
  return heapSnapshot(cdp);
}
