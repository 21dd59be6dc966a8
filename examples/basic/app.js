// A todo list that gives agents tools. The one line that matters is the first: it installs
// document.modelContext (and navigator.modelContext) and the MCP server behind it. Everything
// after it is plain page code.
import '/dist/modelcontext.js';

const mc = document.modelContext;
const todos = [];
let nextId = 1;

// ---- the page itself -------------------------------------------------------------------------

const $ = (id) => document.getElementById(id);

function render() {
  const list = $('todos');
  if (!list) return;
  list.replaceChildren(
    ...todos.map((t) => {
      const li = document.createElement('li');
      li.className = t.done ? 'done' : '';
      const box = Object.assign(document.createElement('input'), { type: 'checkbox', checked: t.done });
      box.addEventListener('change', () => {
        t.done = box.checked;
        render();
      });
      const text = Object.assign(document.createElement('span'), { textContent: ` #${t.id} ${t.text}` });
      li.append(box, text);
      return li;
    }),
  );
  if (!todos.length) list.innerHTML = '<li class="empty">Nothing to do.</li>';
}

function addTodo(text) {
  const todo = { id: nextId++, text, done: false };
  todos.push(todo);
  render();
  return todo;
}

$('add-form')?.addEventListener('submit', (e) => {
  e.preventDefault();
  addTodo($('add-text').value);
  $('add-text').value = '';
});

// The live log: every tool handler goes through `logged`, which records its input and outcome.
function logCall(name, input, outcome, isError) {
  const log = $('log');
  if (!log) return;
  log.querySelector('.empty')?.remove();
  const li = document.createElement('li');
  li.innerHTML = `<span class="tool"></span> <code class="input"></code><br>→ <span class="out"></span>`;
  li.querySelector('.tool').textContent = `${new Date().toLocaleTimeString()} ${name}`;
  li.querySelector('.input').textContent = JSON.stringify(input);
  const out = li.querySelector('.out');
  out.textContent = typeof outcome === 'string' ? outcome : JSON.stringify(outcome);
  if (isError) out.className = 'out error';
  log.append(li);
}

function logged(name, fn) {
  return async (input, options) => {
    try {
      const result = await fn(input, options);
      logCall(name, input, result, false);
      return result;
    } catch (e) {
      logCall(name, input, String(e.message || e), true);
      throw e;
    }
  };
}

// ---- the tools -------------------------------------------------------------------------------

// W3C WebMCP: registerTool(tool) returns a promise; `toolchange` has fired when it resolves.
await mc.registerTool({
  name: 'add_todo',
  title: 'Add a todo',
  description: 'Add an item to the todo list. Returns the new item with its id.',
  inputSchema: {
    type: 'object',
    properties: { text: { type: 'string', minLength: 1, maxLength: 200, description: 'What to do' } },
    required: ['text'],
    additionalProperties: false,
  },
  execute: logged('add_todo', ({ text }) => addTodo(text)),
});

await mc.registerTool({
  name: 'list_todos',
  title: 'List todos',
  description: 'List every todo item with its id and whether it is done.',
  annotations: { readOnlyHint: true },
  execute: logged('list_todos', () => todos.map((t) => ({ ...t }))),
});

await mc.registerTool({
  name: 'complete_todo',
  title: 'Complete a todo',
  description: 'Mark the todo item with the given id as done.',
  inputSchema: {
    type: 'object',
    properties: { id: { type: 'integer', minimum: 1 } },
    required: ['id'],
  },
  execute: logged('complete_todo', ({ id }) => {
    const todo = todos.find((t) => t.id === id);
    if (!todo) throw new Error(`There is no todo #${id}.`);
    todo.done = true;
    render();
    return `Done: #${id} ${todo.text}`;
  }),
});

// The session API: registerTool(name, definition) returns an unregister function and takes
// MCP's own annotations and result shapes.
mc.registerTool('clear_completed', {
  title: 'Clear completed',
  description: 'Remove every todo item that is done. Returns how many were removed.',
  annotations: { destructiveHint: true, idempotentHint: true },
  handler: logged('clear_completed', () => {
    const before = todos.length;
    todos.splice(0, todos.length, ...todos.filter((t) => !t.done));
    render();
    const removed = before - todos.length;
    return { content: [{ type: 'text', text: `Removed ${removed} item(s).` }], structuredContent: { removed } };
  }),
});

addTodo('Read the WebMCP spec');
window.todoApp = { todos, addTodo, ready: true };
