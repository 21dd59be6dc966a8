// The server transport kinds as src/transport/kinds.rs's table lists them: [{ name, class }],
// in table order. The tests compare every other list of kinds (the ESM entry's named exports,
// the typings, the installed record) with this one.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const source = readFileSync(fileURLToPath(new URL('../../../src/transport/kinds.rs', import.meta.url)), 'utf8');
const table = source.slice(source.indexOf('pub static KINDS'), source.indexOf('];', source.indexOf('pub static KINDS')));

export const KINDS = [...table.matchAll(/name:\s*"(\w+)",\s*class:\s*"(\w+)"/g)].map(([, name, cls]) => ({ name, class: cls }));
if (KINDS.length === 0) throw new Error('no kinds read from src/transport/kinds.rs');
export const CLASSES = KINDS.map((k) => k.class);
