// ToolActivatedEvent and ToolCancelEvent: constructible events with a `toolName`
// attribute (default "").

function __mcpDefineToolEvent(name) {
  const toolNames = new WeakMap();
  const cls = {
    [name]: class extends Event {
      constructor(type, eventInitDict = undefined) {
        if (arguments.length < 1) {
          throw new TypeError(`Failed to construct '${name}': 1 argument required, but only 0 present.`);
        }
        super(type, eventInitDict);
        const t = eventInitDict == null ? undefined : eventInitDict.toolName;
        toolNames.set(this, t === undefined ? '' : `${t}`);
      }
      get toolName() {
        if (!toolNames.has(this)) throw new TypeError('Illegal invocation');
        return toolNames.get(this);
      }
    },
  }[name];
  return __mcpMakeInterface(cls, name);
}
