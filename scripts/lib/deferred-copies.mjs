// Copies, for the deferred module, of the first module's small functions its code calls
// (scripts/lib/core-split.mjs runs it on the whole core before wasm-split cuts it).
//
// Once the core is cut in two, a call of the deferred module's code into the first module's is
// a crossing: an indirect call through the first module's function table
// (scripts/lib/table-calls.mjs), which V8 does not inline, and a slot of that table for each
// function so called. Most of the functions called are small: a drop, a `RawVec`'s free, a
// `RefCell`'s borrow, a JS value's clone. So each function of the first module that the deferred
// module's code calls, directly or through another copy, and whose code is at most `maxBytes`
// long, gets a copy, and the deferred module's code calls the copy: wasm-split puts the copies in
// the deferred module (they are not kept), where a call of one is a direct call. The first
// module is as it was but for the slots it no longer needs (its code calls the originals);
// memory, globals and tables are the first module's, which the deferred module imports, so a copy
// does what its original does. What it gives, measured: core-split.mjs, DEFERRED_COPY_MAX_BYTES.
//
// It reads and writes the module with npm binaryen's JS build, as scripts/lib/table-calls.mjs
// does. The copies are appended after the module's functions: the indices of the functions
// wasm-split keeps do not move.

import { readWithFeatures } from './table-calls.mjs';
import { readModule } from './wasm-module.mjs';

/** The suffix of a copy's name (binaryen's internal name of the function copied, then this). */
const COPY = '$deferred';

/**
 * Each child expression of `e` (binaryen.js's reference) whose id `binaryen` knows the children
 * of, by the accessors of its kind. An expression of another kind throws: a call inside one
 * would otherwise be missed.
 */
function childrenOf(binaryen, e, id) {
  const b = binaryen;
  switch (id) {
    case b.BlockId: return Array.from({ length: b.Block.getNumChildren(e) }, (_, i) => b.Block.getChildAt(e, i));
    case b.IfId: return [b.If.getCondition(e), b.If.getIfTrue(e), b.If.getIfFalse(e)];
    case b.LoopId: return [b.Loop.getBody(e)];
    case b.BreakId: return [b.Break.getCondition(e), b.Break.getValue(e)];
    case b.SwitchId: return [b.Switch.getCondition(e), b.Switch.getValue(e)];
    case b.CallId: return b.Call.getOperands(e);
    case b.CallIndirectId: return [b.CallIndirect.getTarget(e), ...b.CallIndirect.getOperands(e)];
    case b.LocalSetId: return [b.LocalSet.getValue(e)];
    case b.GlobalSetId: return [b.GlobalSet.getValue(e)];
    case b.LoadId: return [b.Load.getPtr(e)];
    case b.StoreId: return [b.Store.getPtr(e), b.Store.getValue(e)];
    case b.UnaryId: return [b.Unary.getValue(e)];
    case b.BinaryId: return [b.Binary.getLeft(e), b.Binary.getRight(e)];
    case b.SelectId: return [b.Select.getIfTrue(e), b.Select.getIfFalse(e), b.Select.getCondition(e)];
    case b.DropId: return [b.Drop.getValue(e)];
    case b.ReturnId: return [b.Return.getValue(e)];
    case b.MemoryGrowId: return [b.MemoryGrow.getDelta(e)];
    case b.MemoryCopyId: return [b.MemoryCopy.getDest(e), b.MemoryCopy.getSource(e), b.MemoryCopy.getSize(e)];
    case b.MemoryFillId: return [b.MemoryFill.getDest(e), b.MemoryFill.getValue(e), b.MemoryFill.getSize(e)];
    case b.MemoryInitId: return [b.MemoryInit.getDest(e), b.MemoryInit.getOffset(e), b.MemoryInit.getSize(e)];
    case b.TableGetId: return [b.TableGet.getIndex(e)];
    case b.TableSetId: return [b.TableSet.getIndex(e), b.TableSet.getValue(e)];
    case b.TableGrowId: return [b.TableGrow.getValue(e), b.TableGrow.getDelta(e)];
    case b.RefIsNullId: return [b.RefIsNull.getValue(e)];
    case b.RefEqId: return [b.RefEq.getLeft(e), b.RefEq.getRight(e)];
    case b.TupleMakeId: return b.TupleMake.getOperands(e);
    case b.TupleExtractId: return [b.TupleExtract.getTuple(e)];
    case b.ConstId: case b.LocalGetId: case b.GlobalGetId: case b.NopId: case b.UnreachableId:
    case b.MemorySizeId: case b.RefNullId: case b.RefFuncId: case b.TableSizeId: case b.DataDropId:
      return [];
    default: throw new Error(`deferred-copies.mjs: an expression of id ${id}, whose children it does not know`);
  }
}

/** Calls `visit(call)` for each direct call (`call`, `return_call`) in the expression `body`. */
function eachCall(binaryen, body, visit) {
  const stack = [body];
  while (stack.length) {
    const e = stack.pop();
    if (!e) continue;
    const id = binaryen.getExpressionId(e);
    if (id === binaryen.CallId) visit(e);
    stack.push(...childrenOf(binaryen, e, id));
  }
}

/**
 * `whole` (the optimized core, bytes, no names) with a copy of each of the kept functions
 * (`kept`, indices among the defined functions) that the other functions call, directly or
 * through another such copy, and whose code is at most `maxBytes` long, the other functions
 * calling the copies. Returns the module's bytes, how many functions were copied and the size
 * of their code.
 * @param {Uint8Array} whole
 * @param {number[]} kept
 * @param {number} maxBytes
 */
export async function withDeferredCopies(whole, kept, maxBytes) {
  const sizes = readModule(whole).bodies;
  const { default: binaryen } = await import('binaryen');
  const module = readWithFeatures(binaryen, whole);
  try {
    const all = Array.from({ length: module.getNumFunctions() }, (_, i) => binaryen.getFunctionInfo(module.getFunctionByIndex(i)));
    const imported = all.filter((f) => f.module).length;
    if (all.slice(imported).some((f) => f.module)) throw new Error('deferred-copies.mjs: an import after a defined function');
    const defined = all.slice(imported);
    const size = new Map(defined.map((f, i) => [f.name, sizes[i]]));
    const keptNames = new Set(kept.map((i) => defined[i].name));
    const byName = new Map(defined.map((f) => [f.name, f]));
    const callsOf = (body) => {
      const calls = [];
      eachCall(binaryen, body, (e) => calls.push(e));
      return calls;
    };

    // The calls of the functions wasm-split will move, then the kept functions to copy: those
    // they call, and those the copies call, at most maxBytes long.
    const movedCalls = defined.filter((f) => !keptNames.has(f.name)).flatMap((f) => callsOf(f.body));
    const copied = new Set();
    const todo = movedCalls.map((e) => binaryen.Call.getTarget(e));
    while (todo.length) {
      const name = todo.pop();
      if (copied.has(name) || !keptNames.has(name) || size.get(name) > maxBytes) continue;
      copied.add(name);
      for (const e of callsOf(byName.get(name).body)) todo.push(binaryen.Call.getTarget(e));
    }
    if (!copied.size) return { bytes: whole, copied: 0, codeBytes: 0 };

    // The copies, after every function; then each call of a copied function from the moved
    // functions and the copies made a call of its copy.
    const copyCalls = [];
    for (const name of copied) {
      const f = byName.get(name);
      const body = module.copyExpression(f.body);
      module.addFunction(name + COPY, f.params, f.results, f.vars, body);
      copyCalls.push(...callsOf(body));
    }
    for (const e of [...movedCalls, ...copyCalls]) {
      const target = binaryen.Call.getTarget(e);
      if (copied.has(target)) binaryen.Call.setTarget(e, target + COPY);
    }
    if (!module.validate()) throw new Error('deferred-copies.mjs: the core does not validate with its copies');
    let codeBytes = 0;
    for (const name of copied) codeBytes += size.get(name);
    return { bytes: module.emitBinary(), copied: copied.size, codeBytes };
  } finally {
    module.dispose();
  }
}
