// Which batches of DOM changes the declarative API (src/browser/forms) looks at. Pages change
// their DOM all the time, and a scan for tool forms costs in proportion to the document, so a
// batch that cannot concern a tool form is not scanned. The records are read here, in JS, in
// one call per batch: read from Rust, each record's type and nodes and each selector test were
// calls into JS, about 20 per added element, which a page re-rendering a list paid on every
// frame.
//
//   __mcpFormChanges(records, formsKnown) → whether the batch may have brought a
//   <form toolname> into the document (formsKnown false: no tool form is known yet; nothing
//   else can concern the declarative API then) or changed what a known tool form describes
//   (formsKnown true): a watched attribute changed (the observer's filter: on any element, it
//   may be a control of one), children changed inside a form, a label, a select or a list of
//   options, or an element added or removed that is or holds a form, a control, a label or an
//   option. A record of another type counts as a change.

// What a tool form's description reads besides the form: its controls (also ones outside it,
// through their `form` attribute), their labels (anywhere, through `for`) and options.
const __MCP_DESCRIBED = 'form, label, input, select, textarea, button, option, optgroup, datalist, output, fieldset, object';
// Elements whose children a description reads.
const __MCP_READ_INSIDE = 'form, label, select, datalist, optgroup, option';

/**
 * Whether one of `nodes` (an array or a NodeList) is or holds an element matching `selector`
 * (text and comments hold nothing); a shadow root holds what its tree holds. (Walked by index:
 * the first for-of over a NodeList costs Chromium 156 0.5-1 ms.)
 */
function __mcpAnyIsOrHolds(nodes, selector) {
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i];
    if (
      typeof node.querySelector === 'function' &&
      ((typeof node.matches === 'function' && node.matches(selector)) || node.querySelector(selector) !== null)
    ) {
      return true;
    }
  }
  return false;
}

function __mcpFormChanges(records, formsKnown) {
  for (const r of records) {
    if (r.type === 'attributes') {
      if (formsKnown || r.attributeName === 'toolname') return true;
    } else if (r.type === 'childList') {
      if (!formsKnown) {
        if (__mcpAnyIsOrHolds(r.addedNodes, 'form[toolname]')) return true;
        continue;
      }
      const t = r.target;
      if (typeof t.closest === 'function' && t.closest(__MCP_READ_INSIDE) !== null) return true;
      if (__mcpAnyIsOrHolds(r.addedNodes, __MCP_DESCRIBED) || __mcpAnyIsOrHolds(r.removedNodes, __MCP_DESCRIBED)) return true;
    } else {
      return true;
    }
  }
  return false;
}
