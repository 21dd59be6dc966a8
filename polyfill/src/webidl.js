// WebIDL shaping helpers: make classes look like platform interfaces (enumerable
// operations and attributes, @@toStringTag, interface objects on the global).

function __mcpMakeInterface(cls, name) {
  // The interface object's name, whatever the minifier named the class (as a function's own
  // `name`: not writable, not enumerable, configurable).
  if (cls.name !== name) Object.defineProperty(cls, 'name', { value: name, configurable: true });
  const proto = cls.prototype;
  for (const key of Object.getOwnPropertyNames(proto)) {
    if (key === 'constructor') continue;
    const d = Object.getOwnPropertyDescriptor(proto, key);
    d.enumerable = true;
    // An attribute's getter and setter are named `get <name>` and `set <name>` (WebIDL), also
    // those made as object literal members (`get() {}`, named `get`).
    for (const [f, prefix] of [[d.get, 'get '], [d.set, 'set ']]) {
      if (typeof f === 'function' && f.name !== prefix + key) {
        Object.defineProperty(f, 'name', { value: prefix + key, configurable: true });
      }
    }
    Object.defineProperty(proto, key, d);
  }
  Object.defineProperty(proto, Symbol.toStringTag, { value: name, configurable: true });
  return cls;
}

function __mcpExposeInterface(global, name, value) {
  if (Object.prototype.hasOwnProperty.call(global, name)) return;
  Object.defineProperty(global, name, { value, writable: true, configurable: true, enumerable: false });
}
