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
// in the order asked (the tab and iframe server transports' answers and announcements; the
// client module's tab and iframe transports' messages), never from inside the call that asks:
// where a debugger or an automation client (DevTools, Playwright, Puppeteer: anything with the
// DevTools Runtime domain on) is attached, every postMessage records the JS stack of its caller
// for the async stack trace, frame by frame, and the core's answers come from deep in the wasm's
// call stack (posted from there, an answer cost about 9 µs more than the client's request did;
// Chromium 156, under Playwright). An envelope is posted from a microtask of its own, unless
// one of the same channel and direction that this realm posted to its own window has not been
// dispatched yet (the gate hub on that window counts them as it hears them): the window's task
// queue is then backed up (a client sent many requests at once, each answered in its own task),
// and the envelope waits in an outbox posted from one task of its own, after the queued ones. A
// postMessage made while the window dispatches an event costs several times one made from a
// task of its own (about 22 µs against 8 for an answer in a burst of 500 requests under
// Playwright, Chromium 156; without a DevTools client the burst gains as much); posted later,
// it is dispatched no later, since it queues behind the envelope already waiting. A lone
// request's answer (no envelope waiting) still goes at once, from its microtask.
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
    // `posted`: this realm's envelopes posted to `target` (its own window) not yet heard
    // here, counted by channel and direction (see __mcpPostEnvelope, __mcpPostedCount).
    const shared = { gates: [], listener: null, posted: [] };
    shared.listener = (ev) => {
      // The gates as they were when this event reached the listener. The event's source and
      // data are read once each, when a gate first needs them (each read is a call into the
      // browser).
      const now = shared.gates;
      let source = __mcpUnread;
      let data = __mcpUnread;
      // While envelopes posted here are on their way, the window's own messages are counted
      // (their source is this window; another window's data is not read for it).
      if (shared.posted.length !== 0) {
        source = ev.source;
        if (source === target) {
          data = ev.data;
          if (data !== null && typeof data === 'object') __mcpHeard(shared.posted, data);
        }
      }
      for (let i = 0; i < now.length; i++) {
        const g = now[i];
        if (!g.live) continue;
        if (g.source !== undefined) {
          if (source === __mcpUnread) source = ev.source;
          if (source !== g.source) continue;
        }
        if (data === __mcpUnread) data = ev.data;
        if (data === null || typeof data !== 'object') return;
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

/**
 * A hub's `posted` count of envelopes of `channel` and `direction`, `{ channel, direction, n }`,
 * or undefined. The counts are a list, of one or two kinds in practice (a window's tab server
 * answers, its clients ask), compared by value: a key made of the two strings would be a new
 * string to hash at every post and every message heard (about 1 µs a call in a burst).
 */
function __mcpPostedCount(posted, channel, direction) {
  for (let i = 0; i < posted.length; i++) {
    const c = posted[i];
    if (c.channel === channel && c.direction === direction) return c;
  }
  return undefined;
}

/** An envelope heard on a window this realm posts to: one fewer of its kind on its way. */
function __mcpHeard(posted, data) {
  if (data.type !== 'mcp') return;
  const c = __mcpPostedCount(posted, data.channel, data.direction);
  if (c === undefined) return;
  if (--c.n === 0) posted.splice(posted.indexOf(c), 1);
}

/**
 * The envelopes waiting for the outbox's task (see __mcpPostEnvelope), in the order asked, and
 * how that task is asked for: a MessageChannel's message (a task of its own, never throttled
 * as a background page's timers are), or a timer where there is no MessageChannel.
 */
const __mcpOutbox = { waiting: [], wake: null };

function __mcpPostEnvelope(target, channel, direction, payload, targetOrigin) {
  const out = __mcpOutbox;
  const envelope = [target, channel, direction, payload, targetOrigin];
  if (out.waiting.length !== 0 || __mcpBackedUp(target, channel, direction)) {
    if (out.waiting.push(envelope) === 1) __mcpWakeOutbox(out);
    return;
  }
  queueMicrotask(() => __mcpPostNow(envelope));
}

/**
 * Whether an envelope of this channel and direction that this realm posted to its own window
 * has not been dispatched yet: the window's task queue holds it, so this one, posted now,
 * would be dispatched after it and after whatever was queued between them anyway.
 */
function __mcpBackedUp(target, channel, direction) {
  const hub = __mcpOwnHub(target);
  return hub !== undefined && __mcpPostedCount(hub.posted, channel, direction) !== undefined;
}

/** The gate hub of `target` if it is this realm's own window (the one whose envelopes it counts). */
function __mcpOwnHub(target) {
  return target === globalThis ? __mcpGateHubs.get(target) : undefined;
}

function __mcpWakeOutbox(out) {
  if (out.wake === null) {
    const flush = () => {
      const waiting = out.waiting;
      out.waiting = [];
      for (let i = 0; i < waiting.length; i++) __mcpPostNow(waiting[i]);
    };
    if (typeof MessageChannel === 'function') {
      const ch = new MessageChannel();
      ch.port1.onmessage = flush;
      // Where ports keep a process alive (Node's, under jsdom), this one does not.
      if (typeof ch.port1.unref === 'function') ch.port1.unref();
      out.wake = () => ch.port2.postMessage(null);
    } else {
      out.wake = () => setTimeout(flush, 0);
    }
  }
  out.wake();
}

function __mcpPostNow([target, channel, direction, payload, targetOrigin]) {
  try {
    target.postMessage({ channel, type: 'mcp', direction, payload }, targetOrigin);
  } catch (e) {
    const copy = __mcpJsonCopy(e, payload);
    if (copy === undefined) {
      __mcpReport(e);
      return;
    }
    try {
      target.postMessage({ channel, type: 'mcp', direction, payload: copy }, targetOrigin);
    } catch (again) {
      __mcpReport(again);
      return;
    }
  }
  const hub = __mcpOwnHub(target);
  if (hub === undefined) return;
  const c = __mcpPostedCount(hub.posted, channel, direction);
  if (c === undefined) hub.posted.push({ channel, direction, n: 1 });
  else c.n++;
}

/**
 * The JSON copy of `payload` to post instead, when posting it threw `e`, a DataCloneError: an
 * answer carrying a page's object as it is (json_clone.js) that a structured clone refuses (a
 * proxy). Undefined for any other failure, or when it has no JSON copy.
 */
function __mcpJsonCopy(e, payload) {
  if (payload === null || typeof payload !== 'object') return undefined;
  try {
    if (e === null || typeof e !== 'object' || e.name !== 'DataCloneError') return undefined;
    return JSON.parse(JSON.stringify(payload));
  } catch {
    return undefined;
  }
}

/** What a gate's handler or a post throws, reported as the core reports a page callback's. */
function __mcpReport(e) {
  if (typeof reportError === 'function') reportError(e);
  else console.error(e);
}
