// Whether a structured clone of a page's value is its JSON data: what JSON.parse of its
// JSON.stringify text gives, value for value (src/browser/js_handler.rs asks it of a tool's long
// object result, whose answer a wire that copies what it posts then carries as the page's own
// object, where it used to carry a JSON.parse copy of the text: the post's clone is the one copy).
//
//   __mcpClonesAsJson(v) → true when v is a plain object or array and every value reached from it
//     is a string, a boolean, null, a finite number other than -0, an array of this realm whose
//     own enumerable properties are its elements and nothing else (no hole), or an object of
//     this realm's Object.prototype or of no prototype, with no toJSON; false for anything else,
//     where the two would differ (undefined, NaN, -0, a Date, a Map, a class's instance, a
//     function, a sparse array…), past __MCP_CLONE_DEPTH levels, and when reading it throws.
//
// (An object's test is message_text.js's __mcpPlainObject.)
//
// What it cannot tell: an object met twice, which JSON.stringify (it made the text without
// meeting a cycle) wrote twice and a clone keeps shared, the same data either way; and a proxy,
// walked through its traps as any object, which a clone refuses (a DataCloneError): the posters
// then post the answer's JSON copy instead (gates.js, `__mcpJsonCopy`; src/js/io.rs,
// `post_or_json_copy`).

const __MCP_CLONE_DEPTH = 256;

function __mcpClonesAsJson(v) {
  const arrays = Array.prototype;
  const protoOf = Object.getPrototypeOf;
  const keys = Object.keys;
  const walk = (x, depth) => {
    switch (typeof x) {
      case 'string':
      case 'boolean':
        return true;
      case 'number':
        // (NaN and ±Infinity are null in JSON, -0 is 0.)
        return x - x === 0 && (x !== 0 || 1 / x > 0);
      case 'object': {
        if (x === null) return true;
        if (depth === 0) return false;
        const proto = protoOf(x);
        if (proto === arrays) {
          const n = x.length;
          // (A hole or a member that is no element makes the counts differ, or leaves an
          // element undefined.)
          if (keys(x).length !== n) return false;
          for (let i = 0; i < n; i++) if (!walk(x[i], depth - 1)) return false;
          return true;
        }
        if (!__mcpPlainObject(x)) return false;
        // (for…in also visits enumerable members an object inherits, which neither copy has:
        // one more value looked at, never one missed.)
        for (const k in x) if (!walk(x[k], depth - 1)) return false;
        return true;
      }
      default:
        return false;
    }
  };
  try {
    return v !== null && typeof v === 'object' && walk(v, __MCP_CLONE_DEPTH);
  } catch {
    return false;
  }
}
