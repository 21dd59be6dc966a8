// Tool schemas given as Standard Schemas (https://standardschema.dev: zod 4.2+, ArkType,
// Valibot with its JSON Schema support …), which MCP's TypeScript SDK and @mcp-b/global take.
// The spec serializes inputSchema with JSON.stringify, which turns such a schema into the
// library's internals (a zod object gives {"def":…,"type":"object"}): agents would be shown
// that, and no input would be checked. Beyond the spec, then, the engine (src/browser/store.rs)
// asks this helper first:
//
//   __mcpStandardSchema(schema, io) → undefined | { json, validate }
//     undefined: `schema` is not a Standard Schema (a JSON Schema, serialized as the spec says);
//     json: the library's JSON Schema for `io` ('input' or 'output'), draft 2020-12 (draft 7
//       when the library has no 2020-12), which the engine lists and validates with;
//     validate(execute): `execute` behind the library's own parse, as the SDK runs a handler: it
//       gets the parsed value (defaults filled, transforms applied), and input that passes the
//       JSON Schema but not the library (a refinement) is a DataError naming the issues.
//   It throws a TypeError for a Standard Schema without a JSON Schema (zod before 4.2), and for
//   an object of schemas ({ a: z.number() }, the SDK v1's raw shape), saying what to pass.
//
//   __mcpAcceptSdkForms(glue), __mcpSdkForm(method, key, def, third, fourth) → [key, def]: the
//     SDK's registration forms as the session API's (below), for the core templates;
//   __mcpPromptArguments(argsSchema) → [{ name, description, required }]: a prompt's arguments
//     from the SDK's argsSchema (below).

function __mcpStandardSchema(schema, io) {
  const std = __mcpStandardOf(schema);
  if (!std) {
    if (schema !== null && typeof schema === 'object' && !Array.isArray(schema)) {
      const values = Object.values(schema);
      if (values.length && values.every((v) => __mcpStandardOf(v))) {
        throw new TypeError(
          `The ${io}Schema is an object of schemas ({ ${Object.keys(schema)[0]}: …, … }), as the MCP SDK v1 takes them: ` +
            'pass one schema for the whole object (with zod, z.object({ … })) or a JSON Schema.',
        );
      }
    }
    return undefined;
  }
  const convert = std.jsonSchema && std.jsonSchema[io];
  if (typeof convert !== 'function') {
    throw new TypeError(
      `The ${io}Schema is a Standard Schema (${JSON.stringify(String(std.vendor))}) that gives no JSON Schema ` +
        '(~standard.jsonSchema): pass its JSON Schema instead, or a version of the library that gives one (zod 4.2 or later).',
    );
  }
  let json;
  let failure;
  for (const target of ['draft-2020-12', 'draft-07']) {
    try {
      json = convert.call(std.jsonSchema, { target });
      break;
    } catch (e) {
      failure = e;
    }
  }
  if (json === undefined) {
    throw new TypeError(`The ${io}Schema (${String(std.vendor)}) could not give its JSON Schema: ${(failure && failure.message) || failure}`);
  }
  const validate = (execute) =>
    typeof std.validate !== 'function'
      ? execute
      : async function (input, options) {
        const parsed = await std.validate(input);
        if (parsed.issues) {
          const issues = Array.from(parsed.issues, (i) => {
            const path = (i.path || []).map((p) => (p !== null && typeof p === 'object' ? p.key : p)).join('/');
            return path ? `/${path}: ${i.message}` : i.message;
          });
          const e = new DOMException(`The input does not match the tool's ${String(std.vendor)} schema: ${issues.join('; ')}`, 'DataError');
          // (so that executeTool rejects with it, not with UnknownError as for a throwing tool)
          Object.defineProperty(e, Symbol.for('modelcontext-polyfill.refused-input'), { value: true });
          throw e;
        }
        return execute.call(this, parsed.value, options);
      };
  return { json, validate };
}

/**
 * The MCP TypeScript SDK's registration forms (`McpServer`'s) as the session API's
 * `[key, definition]` (for the methods __mcpAcceptSdkForms teaches, when a call has a third or
 * fourth argument): registerTool(name, config, handler) and registerPrompt(name, config, callback) →
 * [name, config with `handler`]; registerResource(name, uriOrTemplate, config, read) → [the URI
 * or the template's text (the SDK's ResourceTemplate gives it as `uriTemplate`), config with
 * `name` and `handler`]. The definition is a new object whose prototype is `config`: nothing
 * is copied or read before the engine reads it. What cannot be meant is a TypeError.
 */
function __mcpSdkForm(method, key, def, third, fourth) {
  if (method === 'registerResource') {
    const uri = def !== null && typeof def === 'object' && def.uriTemplate !== undefined ? String(def.uriTemplate) : def;
    if (typeof fourth !== 'function') {
      throw new TypeError(`${method}(${JSON.stringify(String(uri))}): the fourth argument must be the read callback`);
    }
    const config = third === undefined ? {} : third;
    if (config === null || typeof config !== 'object') {
      throw new TypeError(`${method}(${JSON.stringify(String(uri))}): the third argument (the metadata) must be an object`);
    }
    return [uri, Object.assign(Object.create(config), { name: key, handler: fourth })];
  }
  const what = `${method}(${JSON.stringify(String(key))})`;
  if (typeof third !== 'function') throw new TypeError(`${what}: the third argument must be the handler function`);
  if (def !== null && typeof def === 'object') {
    const own = method === 'registerTool' ? ['handler', 'execute'] : ['handler', 'get'];
    if (own.some((k) => def[k] !== undefined)) {
      throw new TypeError(`${what}: the handler is given twice (in the definition and as the third argument)`);
    }
    return [key, Object.assign(Object.create(def), { handler: third })];
  }
  return [key, def]; // (not an object: the engine says so)
}

/**
 * The engine's and the sessions' registration methods (the glue's `Engine` and
 * `ModelContextSession` classes, which take `(key, definition)`) taught the SDK's forms: a call
 * with a third or fourth argument goes through `__mcpSdkForm` first. Once per glue; returns it.
 */
function __mcpAcceptSdkForms(glue) {
  const methods = {
    Engine: { registerToolDef: 'registerTool', registerResource: 'registerResource', registerPrompt: 'registerPrompt' },
    ModelContextSession: { registerTool: 'registerTool', registerResource: 'registerResource', registerPrompt: 'registerPrompt' },
  };
  for (const [cls, names] of Object.entries(methods)) {
    const proto = glue[cls] && glue[cls].prototype;
    for (const [name, method] of Object.entries(names)) {
      const own = proto && proto[name];
      if (typeof own !== 'function' || own.sdkForms) continue;
      const taught = function (key, def, third = undefined, fourth = undefined) {
        if (third === undefined && fourth === undefined) return own.call(this, key, def);
        const [k, d] = __mcpSdkForm(method, key, def, third, fourth);
        return own.call(this, k, d);
      };
      Object.defineProperty(taught, 'name', { value: name });
      taught.sdkForms = true;
      Object.defineProperty(proto, name, { ...Object.getOwnPropertyDescriptor(proto, name), value: taught });
    }
  }
  return glue;
}

/**
 * A prompt's `arguments` from the MCP TypeScript SDK's `argsSchema` (src/browser/session_api.rs):
 * a schema of an object (its properties, `required` and descriptions), or the SDK v1's object of
 * schemas, where an argument is required unless its schema takes `undefined` (zod's
 * `.optional()`). → [{ name, description, required }]
 */
function __mcpPromptArguments(argsSchema) {
  if (__mcpStandardOf(argsSchema)) {
    const { json } = __mcpStandardSchema(argsSchema, 'input');
    const required = new Set(Array.isArray(json.required) ? json.required : []);
    return Object.entries((json && json.properties) || {}).map(([name, p]) => ({
      name,
      description: p && typeof p.description === 'string' ? p.description : undefined,
      required: required.has(name),
    }));
  }
  if (argsSchema === null || typeof argsSchema !== 'object' || Array.isArray(argsSchema)) {
    throw new TypeError('argsSchema must be a schema of an object (with zod, z.object({ … })) or an object of schemas');
  }
  return Object.entries(argsSchema).map(([name, schema]) => {
    const std = __mcpStandardOf(schema);
    if (!std) throw new TypeError(`argsSchema.${name} is not a Standard Schema (a zod schema, for example)`);
    let description;
    try {
      const json = std.jsonSchema && std.jsonSchema.input({ target: 'draft-2020-12' });
      if (json && typeof json.description === 'string') description = json.description;
    } catch {
      // (no description then)
    }
    let required = true;
    try {
      const r = std.validate(undefined);
      required = !(r && typeof r.then !== 'function' && !r.issues);
    } catch {
      // (a schema that cannot even look at undefined does not take it)
    }
    return { name, description, required };
  });
}

/** `value['~standard']` when `value` is a Standard Schema (version 1), else undefined. */
function __mcpStandardOf(value) {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return undefined;
  const std = value['~standard'];
  return std !== null && typeof std === 'object' && std.version === 1 ? std : undefined;
}
