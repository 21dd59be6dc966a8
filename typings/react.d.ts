// Type definitions for `modelcontext-polyfill/react` and `modelcontext-polyfill/react/inline`
// (React is a peer dependency; these types need none of React's own).

import type { ModelContextTool, ToolExecuteCallbackOptions } from './index.js';

/** What `useTool` returns: the state of the tool's calls, for UI. */
export interface ToolExecutionState<Result = unknown> {
  /** A call is running. */
  readonly isExecuting: boolean;
  /** What the last successful call returned. */
  readonly lastResult: Result | undefined;
  /** What the last failed call threw (cleared by the next success). */
  readonly error: unknown;
  /** How many calls have started since mount (or `reset()`). */
  readonly executionCount: number;
  /** Back to the idle state. */
  reset(): void;
}

/**
 * Registers `definition` with `document.modelContext` while the component is mounted (an
 * AbortSignal unregisters it on unmount; StrictMode and hot reload safe). `deps` re-registers
 * it when they change (default: `[definition.name]`); the latest `execute` is always called.
 */
export declare function useTool<Input extends object = Record<string, any>, Result = unknown>(
  definition: Omit<ModelContextTool<Input>, 'execute'> & {
    execute: (input: Input, options: ToolExecuteCallbackOptions) => Result | PromiseLike<Result>;
  },
  deps?: readonly unknown[],
): ToolExecutionState<Awaited<Result>>;
