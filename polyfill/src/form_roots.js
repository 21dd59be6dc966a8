// The shadow trees the declarative API (src/browser/forms) looks in. A <form toolname> in a
// shadow tree is a tool too, as in Chromium; and its submit event does not leave the tree (it
// is not composed), so a tree that holds tool forms gets the capture listeners the window has.
//
//   __mcpShadowRoots(watch, document, observer, init, onSubmit, onReset)
//     → { forms(), relevant(records, formsKnown), moved(), stop() }
//
// The roots: every open one in the document now (and, recursively, in those), then every root a
// script attached since the front ran or attaches from now on, open or closed (`watch`, the
// front's wrapper of Element.prototype.attachShadow, __mcpWatchShadowRoots; null where it could
// not wrap it). Out of reach: closed roots attached before the polyfill's script ran, and roots
// the HTML parser attaches after the core has loaded (declarative shadow DOM streamed in later).
// Each root is observed by `observer` (the engine's MutationObserver, `init` its options) as the
// document is. Roots are held weakly: a component that goes away takes its root. A page with
// many components attaches many roots, so a new root costs only what it must (it is empty).
//
// forms(): the tool forms in the roots whose host is connected, root by root in the order the
// roots were found (after the document's own, for the engine); each root that holds one gets the
// submit and reset listeners.
// relevant(): __mcpFormChanges (form_changes.js) for a batch of records that also come from the
// roots. A root that held no tool form at the last forms() (most components' roots, re-rendered
// all the time) matters only when a tool form arrives in it: a control joins a form, and a label
// names a control, within one tree. The other records, the document's and those of roots with
// tool forms, go to __mcpFormChanges as they are.
// moved(): whether a root that held tool forms at the last forms() was connected or
// disconnected since, by its host (or an ancestor) being removed or inserted, which the
// document's observer sees without seeing into.
// stop(): the listeners off the roots, attachShadow as it was.

/**
 * Calls `add(root)` for each open shadow root in `node` and, where `add` returns true (a root it
 * had not seen), for those in that root too. (The lists are walked by index: the first for-of
 * over a NodeList costs Chromium 156 0.5-1 ms, on the core's start.)
 */
function __mcpOpenRoots(node, add) {
  const all = node.querySelectorAll('*');
  for (let i = 0; i < all.length; i++) {
    const root = all[i].shadowRoot;
    if (root && add(root)) __mcpOpenRoots(root, add);
  }
}

function __mcpShadowRoots(watch, document, observer, init, onSubmit, onReset) {
  const seen = new WeakSet();
  const listened = new WeakSet();
  let roots = [];
  let held = [];
  let holding = new WeakSet();
  const add = (root) => {
    if (!root || seen.has(root)) return false;
    seen.add(root);
    roots.push(new WeakRef(root));
    observer.observe(root, init);
    return true;
  };
  if (watch) {
    for (const ref of watch.early) add(ref.deref());
    watch.early = [];
    watch.found = add;
  }
  __mcpOpenRoots(document, add);
  return {
    forms() {
      const out = [];
      held = [];
      holding = new WeakSet();
      roots = roots.filter((ref) => {
        const root = ref.deref();
        if (!root) return false;
        const list = root.querySelectorAll('form[toolname]');
        if (list.length) {
          const connected = root.host.isConnected;
          held.push([ref, connected]); // (weakly: a component that goes for good takes its root)
          holding.add(root);
          if (connected) for (let i = 0; i < list.length; i++) out.push(list[i]);
          if (!listened.has(root)) {
            listened.add(root);
            root.addEventListener('submit', onSubmit, true);
            root.addEventListener('reset', onReset, true);
          }
        }
        return true;
      });
      // (A root that no longer holds a tool form keeps its listeners until it goes.)
      return out;
    },
    relevant(records, formsKnown) {
      const rest = [];
      for (const r of records) {
        const root = r.target.getRootNode();
        if (!(root instanceof ShadowRoot) || holding.has(root)) rest.push(r);
        else if (r.type === 'attributes' ? r.attributeName === 'toolname' : __mcpAnyIsOrHolds(r.addedNodes, 'form[toolname]')) return true;
      }
      return rest.length > 0 && __mcpFormChanges(rest, formsKnown);
    },
    moved: () =>
      held.some(([ref, connected]) => {
        const root = ref.deref();
        return root !== undefined && root.host.isConnected !== connected;
      }),
    stop() {
      if (watch) watch.stop();
      for (const ref of roots) {
        const root = ref.deref();
        if (!root || !listened.has(root)) continue;
        root.removeEventListener('submit', onSubmit, true);
        root.removeEventListener('reset', onReset, true);
      }
      roots = [];
      held = [];
    },
  };
}
