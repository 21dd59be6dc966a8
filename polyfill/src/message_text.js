// The JSON text of a message a transport received, measured before anything is copied into
// wasm memory (src/transport/guard.rs, `message_text`, calls it once per message). The walk
// and the serialization run here, in one call: made from Rust, the walk was a call into JS
// for every property, type test and length it read, about 60 for a `tools/call`.
//
//   __mcpMessageText(payload, max) →
//     a string: JSON.stringify(payload), at most `max` UTF-16 code units long;
//     a number: the message is longer than `max` characters, at least this many. When the
//       strings among its first values already hold more than `max` characters, it is not
//       serialized at all, so a huge argument is never copied a second time;
//     undefined: the payload has no JSON representation (a function, a symbol…).
//   Throws what JSON.stringify throws (a cycle, a BigInt, a throwing toJSON).

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
    const proto = Object.getPrototypeOf(v);
    if ((proto !== null && proto !== Object.prototype) || typeof v.toJSON === 'function') return 0;
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
  const text = JSON.stringify(payload);
  if (typeof text !== 'string') return undefined;
  return text.length > max ? text.length : text;
}
