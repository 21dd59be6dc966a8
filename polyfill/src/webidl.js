// WebIDL shaping helpers: make classes look like platform interfaces (enumerable
// operations and attributes, @@toStringTag, interface objects on the global).

function __mcpMakeInterface(cls, name) {
  const proto = cls.prototype;
  for (const key of Object.getOwnPropertyNames(proto)) {
    if (key === 'constructor') continue;
    const d = Object.getOwnPropertyDescriptor(proto, key);
    d.enumerable = true;
    Object.defineProperty(proto, key, d);
  }
  Object.defineProperty(proto, Symbol.toStringTag, { value: name, configurable: true });
  return cls;
}

function __mcpExposeInterface(global, name, value) {
  if (Object.prototype.hasOwnProperty.call(global, name)) return;
  Object.defineProperty(global, name, { value, writable: true, configurable: true, enumerable: false });
}
