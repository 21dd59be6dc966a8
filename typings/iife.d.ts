// Type definitions for the classic-script builds (`modelcontext-polyfill/iife`,
// `modelcontext-polyfill/iife/inline`): they export nothing; loading one declares the globals
// (`document.modelContext`, `navigator.modelContext`, `ModelContext`, the event classes and
// `modelContextPolyfillConfig`). Reference it from a classic-script project with
//
//   /// <reference types="modelcontext-polyfill/iife" />
//
// The client and transport classes are on the install record,
// `globalThis[Symbol.for('modelcontext-polyfill')]` (`ModelContextPolyfillRecord` in index.d.ts).

/// <reference path="./webmcp.d.ts" />
/// <reference path="./session.d.ts" />

export {};
