// The first checks of a window `message` event, made in JS before the core is entered: a page's
// own postMessage traffic (and the core's own answers, which every window listener hears) then
// costs no call into wasm. A gate only drops events its listener would drop unanswered, and
// hands the listener the data it checked, read once, so the listener need not read and compare
// the same members again (src/js/guard.rs, `MessageGate`).
//
//   __mcpMessageGate(handler, source, fields) → the listener to add: it calls handler(ev, data)
//   for events whose data is an object with each of `fields` ([key, value] pairs; a value of
//   undefined stands for any string) and, unless `source` is undefined, whose source is `source`.
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

function __mcpMessageGate(handler, source, fields) {
  return (ev) => {
    if (source !== undefined && ev.source !== source) return;
    const data = ev.data;
    if (data === null || typeof data !== 'object') return;
    for (const [key, value] of fields) {
      const v = data[key];
      if (value === undefined ? typeof v !== 'string' : v !== value) return;
    }
    handler(ev, data);
  };
}

function __mcpPostEnvelope(target, channel, direction, payload, targetOrigin) {
  queueMicrotask(() => {
    try {
      target.postMessage({ channel, type: 'mcp', direction, payload }, targetOrigin);
    } catch (e) {
      if (typeof reportError === 'function') reportError(e);
      else console.error(e);
    }
  });
}
