// The first checks of a window `message` event, made in JS before the core is entered: a page's
// own postMessage traffic (and the core's own answers, which every window listener hears) then
// costs no call into wasm. A gate only drops events its listener would drop unanswered, and
// hands the listener the data it checked, read once, so the listener need not read and compare
// the same members again (src/js/guard.rs, `MessageGate`).
//
//   __mcpMessageGate(target, handler, source, fields) → remove(): listens on `target` and calls
//   handler(ev, data) for `message` events whose data is an object with each of `fields`
//   ([key, value] pairs; a value of undefined stands for any string) and, unless `source` is
//   undefined, whose source is `source`, until remove() is called.
//
// Every gate on one target shares one `message` listener, added with the first gate and removed
// with the last: each listener the browser calls costs about 0.7 µs per message (Chromium 156),
// and a page's window carries the tab transport's gate and the frames wire's, so every message
// of the page (the tab wire's requests and answers included) woke two listeners. The shared
// listener keeps what separate listeners would do: a gate added while an event is dispatched
// does not see that event, a gate removed then is not called for it, and a handler that throws
// is reported (as the browser reports a listener's exception) while the next gates still run.
//
// And the other way, the MCP-B wire's envelope (src/wire/mcpb.rs) made and posted in one call:
//
//   __mcpPostEnvelope(target, channel, direction, payload, targetOrigin)
//     → target.postMessage({ channel, type: 'mcp', direction, payload }, targetOrigin)
//
// posted from a microtask of its own, in the order asked (the tab and iframe server transports'
// answers and announcements; the client module's tab and iframe transports' messages). Where a
// debugger or an automation client (DevTools, Playwright, Puppeteer: anything with the DevTools
// Runtime domain on) is attached, every postMessage records the JS stack of its caller for the
// async stack trace, frame by frame, and the core's answers come from deep in the wasm's call
// stack: posted from there, an answer cost about 9 µs more than the client's request did
// (Chromium 156, under Playwright; without a DevTools client attached, posting later costs
// nothing measurable).
// The payloads are JSON values and control strings, which always clone. A post that throws
// anyway (a target origin that is not one) is reported as the core reports what a page's
// callback throws (src/js/io.rs `report`): to `reportError`, or the console.

/** Each target's shared listener and its gates (replaced, never changed in place). */
const __mcpGateHubs = new WeakMap();

/** What the shared listener holds for a member of the event it has not read yet. */
const __mcpUnread = Symbol('unread');

function __mcpMessageGate(target, handler, source, fields) {
  const gate = { live: true, handler, source, fields };
  let hub = __mcpGateHubs.get(target);
  if (hub === undefined) {
    const shared = { gates: [], listener: null };
    shared.listener = (ev) => {
      // The gates as they were when this event reached the listener. The event's source and
      // data are read once each, when a gate first needs them (each read is a call into the
      // browser).
      const now = shared.gates;
      let source = __mcpUnread;
      let data = __mcpUnread;
      for (let i = 0; i < now.length; i++) {
        const g = now[i];
        if (!g.live) continue;
        if (g.source !== undefined) {
          if (source === __mcpUnread) source = ev.source;
          if (source !== g.source) continue;
        }
        if (data === __mcpUnread) {
          data = ev.data;
          if (data === null || typeof data !== 'object') return;
        }
        if (!__mcpGateOpen(data, g.fields)) continue;
        try {
          g.handler(ev, data);
        } catch (e) {
          __mcpReport(e);
        }
      }
    };
    hub = shared;
    __mcpGateHubs.set(target, hub);
    target.addEventListener('message', hub.listener);
  }
  hub.gates = [...hub.gates, gate];
  return () => {
    if (!gate.live) return;
    gate.live = false;
    hub.gates = hub.gates.filter((g) => g !== gate);
    if (hub.gates.length === 0 && __mcpGateHubs.get(target) === hub) {
      __mcpGateHubs.delete(target);
      target.removeEventListener('message', hub.listener);
    }
  };
}

/** Whether `data` has each of `fields` (see __mcpMessageGate). */
function __mcpGateOpen(data, fields) {
  for (const [key, value] of fields) {
    const v = data[key];
    if (value === undefined ? typeof v !== 'string' : v !== value) return false;
  }
  return true;
}

function __mcpPostEnvelope(target, channel, direction, payload, targetOrigin) {
  queueMicrotask(() => {
    try {
      target.postMessage({ channel, type: 'mcp', direction, payload }, targetOrigin);
    } catch (e) {
      __mcpReport(e);
    }
  });
}

/** What a gate's handler or a post throws, reported as the core reports a page callback's. */
function __mcpReport(e) {
  if (typeof reportError === 'function') reportError(e);
  else console.error(e);
}
