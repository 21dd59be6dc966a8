// The JSON text of a message a transport received, measured before anything is copied into
// wasm memory (src/transport/guard.rs, `message_text`, calls it once per message). The walk
// and the serialization run here, in one call: made from Rust, the walk was a call into JS
// for every property, type test and length it read, about 60 for a `tools/call`.
//
//   __mcpMessageText(payload, max) →
//     a string: JSON.stringify(payload), at most `max` UTF-16 code units long;
//     an array [text, marker, string, marker, string…]: a `tools/call` whose arguments hold
//       long strings, held out of the text (see __mcpHeldArguments);
//     a number: the message is longer than `max` characters, at least this many. When the
//       strings among its first values already hold more than `max` characters, it is not
//       serialized at all, so a huge argument is never copied a second time;
//     undefined: the payload has no JSON representation (a function, a symbol…).
//   Throws what JSON.stringify throws (a cycle, a BigInt, a throwing toJSON).

// Whether object `v` (not an array) is written by JSON.stringify as its own enumerable
// properties: a plain object (or one without a prototype) with no toJSON.
function __mcpPlainObject(v) {
  const proto = Object.getPrototypeOf(v);
  return (proto === null || proto === Object.prototype) && typeof v.toJSON !== 'function';
}

// How many values the walk looks at: enough for a JSON-RPC envelope and its arguments, too few
// to cost anything on a normal message.
const __MCP_WALK_VALUES = 48;

function __mcpMessageText(payload, max) {
  let budget = __MCP_WALK_VALUES;
  // The objects walked: one met again is a cycle (posted messages may have them), which has no
  // JSON text; it counts nothing, and JSON.stringify then throws.
  const seen = [];
  // A lower bound of the length of JSON.stringify(v), from the lengths of the strings among
  // the first values of plain objects and arrays. Everything else (numbers, class instances,
  // values with a toJSON) counts nothing, so the bound never overshoots.
  const atLeast = (v) => {
    if (budget === 0) return 0;
    budget--;
    if (typeof v === 'string') return v.length + 2;
    if (v === null || typeof v !== 'object' || seen.includes(v)) return 0;
    seen.push(v);
    let n = 2;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length && n <= max && budget > 0; i++) n += atLeast(v[i]);
      return n;
    }
    if (!__mcpPlainObject(v)) return 0;
    for (const key of Object.keys(v)) {
      if (n > max || budget === 0) break;
      const inner = atLeast(v[key]);
      // "key": value
      if (inner > 0) n += key.length + 3 + inner;
    }
    return n;
  };
  const bound = atLeast(payload);
  if (bound > max) return bound;
  if (bound >= __MCP_HELD_CHARS) {
    const held = __mcpHeldArguments(payload, max);
    if (held !== null) return held;
  }
  const text = JSON.stringify(payload);
  if (typeof text !== 'string') return undefined;
  return text.length > max ? text.length : text;
}

// The strings of a tools/call's arguments at least this long (UTF-16 code units) are held out
// of its text: the engine gets a marker in each one's place and the page's function the string
// itself (src/server/held.rs, `HeldArguments`), so a long argument is never written into JSON,
// copied into wasm memory and copied out again. A marker is what every one starts with, then
// a number naming the message (random for the page, then counted: no agent can know it, so a
// message's strings are never taken for another's markers), then the string's index.
const __MCP_HELD_CHARS = 16384;
const __MCP_ARGUMENT_MARKER = '\uFDD0arg ';
const __MCP_HELD_MESSAGES = { page: __mcpRandomName(), count: 0 };

function __mcpRandomName() {
  const words = new Uint32Array(2);
  if (globalThis.crypto?.getRandomValues) globalThis.crypto.getRandomValues(words);
  else for (let i = 0; i < 2; i++) words[i] = Math.floor(Math.random() * 2 ** 32);
  return [...words].map((w) => w.toString(36)).join('');
}
// How many values of the arguments the holding walk looks at, at most.
const __MCP_HELD_WALK = 10000;

// `[text, marker, string…]` for a tools/call request whose arguments hold strings of at least
// __MCP_HELD_CHARS code units: the text is JSON.stringify's of the message with a marker in
// place of each, and is refused (its length, as __mcpMessageText's) when it would be longer
// than `max` with them in (each counted by its length and quotes, as the bound is: characters
// that JSON escapes are counted once). null (nothing held; the caller serializes the message
// as it is) for anything else: another message, arguments with none, or with a value whose
// JSON the copy could not be sure to write as JSON.stringify does (not a plain object or
// array, a toJSON, more than __MCP_HELD_WALK values, a cycle), or with a string that starts as
// a marker does (so no string of an agent's is taken for one).
function __mcpHeldArguments(payload, max) {
  const plain = (v) => v !== null && typeof v === 'object' && !Array.isArray(v) && __mcpPlainObject(v);
  if (!plain(payload) || payload.method !== 'tools/call' || !plain(payload.params) || !plain(payload.params.arguments)) {
    return null;
  }
  const held = [];
  const name = `${__MCP_ARGUMENT_MARKER}${__MCP_HELD_MESSAGES.page}.${__MCP_HELD_MESSAGES.count} `;
  let budget = __MCP_HELD_WALK;
  // How much longer the text would be with the held strings in.
  let longer = 0;
  const stop = {};
  const seen = new Set();
  const copy = (v) => {
    if (budget-- === 0) throw stop;
    if (typeof v === 'string') {
      if (v.startsWith(__MCP_ARGUMENT_MARKER)) throw stop;
      if (v.length < __MCP_HELD_CHARS) return v;
      const marker = name + held.length / 2;
      held.push(marker, v);
      longer += v.length - marker.length;
      return marker;
    }
    if (v === null || typeof v !== 'object') return v;
    if (seen.has(v) || typeof v.toJSON === 'function') throw stop;
    seen.add(v);
    let out;
    if (Array.isArray(v)) {
      out = [];
      for (let i = 0; i < v.length; i++) out.push(copy(v[i]));
    } else {
      if (!plain(v)) throw stop;
      // (No prototype: a member named __proto__ is a member, as JSON.parse makes it.)
      out = Object.create(null);
      for (const key of Object.keys(v)) out[key] = copy(v[key]);
    }
    seen.delete(v);
    return out;
  };
  let args;
  try {
    args = copy(payload.params.arguments);
  } catch (e) {
    if (e === stop || e instanceof RangeError) return null;
    throw e;
  }
  if (held.length === 0) return null;
  __MCP_HELD_MESSAGES.count++;
  const text = JSON.stringify({ ...payload, params: { ...payload.params, arguments: args } });
  if (typeof text !== 'string') return null;
  return text.length + longer > max ? text.length + longer : [text, ...held];
}
