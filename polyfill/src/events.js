// ToolActivatedEvent and ToolCancelEvent: constructible events with a `toolName`
// attribute (default ""), and the one function the engine fires them with.

function __mcpDefineToolEvent(name) {
  const cls = {
    [name]: class extends Event {
      // A private field rather than a WeakMap beside the class: an event made per tool call
      // then costs no ephemeron entry for the garbage collector to trace.
      #toolName;
      constructor(type, eventInitDict = undefined) {
        if (arguments.length < 1) {
          throw new TypeError(`Failed to construct '${name}': 1 argument required, but only 0 present.`);
        }
        super(type, eventInitDict);
        const t = eventInitDict == null ? undefined : eventInitDict.toolName;
        this.#toolName = t === undefined ? '' : `${t}`;
      }
      get toolName() {
        if (!(#toolName in this)) throw new TypeError('Illegal invocation');
        return this.#toolName;
      }
    },
  }[name];
  return __mcpMakeInterface(cls, name);
}

// `new cls(type, { toolName })` dispatched at `target`, then a second one at `global`
// (src/browser/engine.rs `fire_tool_event`: one call into JS for what took ten).
function __mcpFireToolEvent(cls, type, toolName, target, global) {
  target.dispatchEvent(new cls(type, { toolName }));
  global.dispatchEvent(new cls(type, { toolName }));
}
