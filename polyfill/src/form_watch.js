// The declarative API's work (src/browser/forms) is in the core's deferred module, which a page
// that no agent reaches and that calls nothing of it never asks for (polyfill/src/deferred.js).
// A page with a <form toolname> at its start asks for it then (polyfill/src/install.js); this
// watches for one that appears later, so that it is a tool as soon as it would have been with
// the module there: the API starts once the module has arrived, and finds every form then.
//
//   __mcpWatchToolForms(document, watch, found, settled)
//
// Watches the document, the shadow roots scripts attach from now on and have attached since the
// front ran (`watch`, the front's wrapper of Element.prototype.attachShadow,
// __mcpWatchShadowRoots; null where it could not wrap it) and, once the page is idle, the open
// roots already in the document (attached before the front ran, or by the HTML parser): calls
// `found()` once, when a tool form is added to one of them or a form there is given a toolname.
// Stops then, or once `settled` (the deferred module's arrival) settles. The roots scripts
// attach go on to `watch.early`, where the declarative API takes them as it does without this.

function __mcpWatchToolForms(document, watch, found, settled) {
  if (typeof MutationObserver !== 'function') return;
  const init = { childList: true, subtree: true, attributes: true, attributeFilter: ['toolname'] };
  const isToolForm = (node) => node.localName === 'form' && node.hasAttribute('toolname');
  // (__mcpAnyIsOrHolds, form_changes.js: `querySelector` looks into no element's or root's own
  // shadow trees.)
  let done = false;
  const stop = () => {
    if (done) return;
    done = true;
    observer.disconnect();
    if (watch && watch.found === onRoot) watch.found = null;
  };
  const hit = () => {
    stop();
    found();
  };
  const observer = new MutationObserver((records) => {
    for (let i = 0; i < records.length; i++) {
      const r = records[i];
      if (r.type === 'attributes') {
        if (isToolForm(r.target)) return hit();
        continue;
      }
      if (__mcpAnyIsOrHolds(r.addedNodes, 'form[toolname]')) return hit();
    }
  });
  const seen = new WeakSet();
  // Whether `root` is one it had not seen (and it watches it now).
  const observe = (root) => {
    if (done || !root || seen.has(root)) return false;
    seen.add(root);
    observer.observe(root, init);
    if (__mcpAnyIsOrHolds([root], 'form[toolname]')) hit();
    return true;
  };
  const onRoot = (root) => {
    watch.early.push(new WeakRef(root));
    observe(root);
  };
  observer.observe(document, init);
  if (watch && !watch.found) {
    for (const ref of watch.early) observe(ref.deref());
    watch.found = onRoot;
  }
  __mcpWhenSettled(() => {
    if (!done) __mcpOpenRoots(document, observe);
  });
  settled.then(stop, stop);
}
